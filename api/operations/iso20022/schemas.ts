/** Wire schemas of the ISO 20022 area, and reading the XML out of a request (raw XML or JSON { xml }). */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors';
import { envelope, errorResponses } from '../../schemas';

export const TAGS = ['ISO 20022'];

export const XML_TYPES = ['application/xml', 'text/xml'];

const xmlBody = { type: 'string', description: 'An ISO 20022 XML message (Document, or an envelope holding AppHdr + Document)' } as const;

/** Body schema for routes taking XML as application/xml, text/xml or JSON `{ "xml": "..." }`. */
export const xmlOrJsonBody = {
  content: {
    'application/xml': { schema: xmlBody },
    'text/xml': { schema: xmlBody },
    'application/json': {
      schema: { type: 'object', required: ['xml'], properties: { xml: { type: 'string' } } },
    },
  },
} as const;

export const issueSchema = {
  type: 'object',
  properties: {
    line: { type: 'integer' },
    column: { type: 'integer' },
    path: { type: 'string', description: 'XPath-like location, e.g. /Document/BkToCstmrStmt/Stmt/Bal[3]/Amt' },
    message: { type: 'string' },
    kind: { type: 'string', enum: ['xsd', 'business'] },
    code: { type: 'string', description: "The business rule id (docs/iso20022.md lists each with its level and source), or 'schema' for an XSD violation" },
    rule: { type: 'string', description: 'The business rule id (same as code), for kind business' },
    source: {
      type: 'string',
      description: 'Where the rule comes from: the XSD, the ISO 20022 message definition rule / data type rule / usage guideline, or "platform rule: <reason>"',
    },
  },
} as const;

/** The app's error envelope for the statuses these routes produce (415 for a body type they do not take). */
export const commonErrors = { ...errorResponses, 415: errorResponses['422'] };

/** The XML text of a request: the raw body for XML content types, or the `xml` member of a JSON body. */
export function xmlOf(req: FastifyRequest): string {
  const body = req.body as unknown;
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object' && typeof (body as { xml?: unknown }).xml === 'string') return (body as { xml: string }).xml;
  throw new ApiError(400, 'INVALID_XML', 'Send the XML as application/xml or text/xml, or as JSON { "xml": "..." }', {
    source: { pointer: '/xml' },
  });
}

export const validateResponse = envelope({
  type: 'object',
  properties: {
    valid: { type: 'boolean', description: 'True when errors is empty (warnings do not count)' },
    message_type: { type: 'string' },
    version: { type: 'string' },
    namespace: { type: 'string' },
    variant: { type: 'string' },
    schemas: { type: 'object', additionalProperties: true },
    checks: { type: 'object', properties: { xsd: { type: 'boolean' }, business: { type: 'boolean' } } },
    notes: { type: 'array', items: { type: 'string' } },
    errors: { type: 'array', items: issueSchema, description: 'Schema violations and error-level business rules; any error makes valid false' },
    warnings: {
      type: 'array',
      items: issueSchema,
      description: 'Warning-level business rules: consistency checks real bank messages legitimately break (e.g. statement balances on one page of several); reported, valid stays true',
    },
  },
});

export const generateBody = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', description: 'Message type, e.g. "pacs.008" (a full version such as "pacs.008.001.09" also works)' },
    version: { type: 'string', description: 'Version with a schema, e.g. "pain.001.001.03"' },
    amount: { description: 'Decimal string, e.g. "1250.00" (never a JSON number)' },
    currency: { type: 'string', description: 'ISO 4217 code' },
    debtor: { type: 'object', additionalProperties: true },
    creditor: { type: 'object', additionalProperties: true },
    business_application_header: {
      description: 'true, or { from, to, version, business_message_id, business_service } to wrap the message with head.001',
    },
  },
  additionalProperties: true,
};

export const generateResponse = {
  description: 'The generated message: application/xml text, or JSON when Accept: application/json',
  content: {
    'application/xml': { schema: { type: 'string' } },
    'application/json': {
      schema: envelope({
        type: 'object',
        properties: { xml: { type: 'string' }, message_type: { type: 'string' }, version: { type: 'string' } },
        additionalProperties: true,
      }),
    },
  },
};
