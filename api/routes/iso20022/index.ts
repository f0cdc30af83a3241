import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors';
import { envelope, errorResponses } from '../../schemas';
import { getConfig } from '../../../iso20022/config';
import { generateMessage, parseMessage, supportedTypes, validateMessage } from '../../../iso20022/index';

const TAGS = ['ISO 20022'];
const XML_TYPES = ['application/xml', 'text/xml'];

const xmlBody = { type: 'string', description: 'An ISO 20022 XML message (Document, or an envelope holding AppHdr + Document)' } as const;

/** Body schema for routes taking XML as application/xml, text/xml or JSON `{ "xml": "..." }`. */
const xmlOrJsonBody = {
  content: {
    'application/xml': { schema: xmlBody },
    'text/xml': { schema: xmlBody },
    'application/json': {
      schema: { type: 'object', required: ['xml'], properties: { xml: { type: 'string' } } },
    },
  },
} as const;

const issueSchema = {
  type: 'object',
  properties: {
    line: { type: 'integer' },
    column: { type: 'integer' },
    path: { type: 'string' },
    message: { type: 'string' },
    kind: { type: 'string', enum: ['xsd', 'business'] },
    rule: { type: 'string' },
  },
} as const;

/** The app's error envelope for the statuses these routes produce (415 for a body type they do not take). */
const commonErrors = { ...errorResponses, 415: errorResponses['422'] };

/** The XML text of a request: the raw body for XML content types, or the `xml` member of a JSON body. */
function xmlOf(req: FastifyRequest): string {
  const body = req.body as unknown;
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object' && typeof (body as { xml?: unknown }).xml === 'string') return (body as { xml: string }).xml;
  throw new ApiError(400, 'INVALID_XML', 'Send the XML as application/xml or text/xml, or as JSON { "xml": "..." }', {
    source: { pointer: '/xml' },
  });
}

function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) && !/\b(application|text)\/xml\b/i.test(accept.split(',')[0] ?? '');
}

export default async function iso20022Routes(app: FastifyInstance): Promise<void> {
  const { maxBytes } = getConfig();

  // XML bodies arrive as strings; every safety check happens in the iso20022 module.
  app.addContentTypeParser(XML_TYPES, { parseAs: 'string', bodyLimit: maxBytes }, (_req, body, done) => done(null, body));

  app.get(
    '/supported-types',
    {
      schema: {
        tags: TAGS,
        summary: 'List supported ISO 20022 message types and versions',
        description:
          'Message types with the versions each operation (parse, generate, validate) accepts, the default generation version, ' +
          'and the head.001 business application header versions.',
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...errorResponses },
      },
    },
    async () => ({ data: supportedTypes() }),
  );

  app.post(
    '/parse',
    {
      bodyLimit: maxBytes,
      schema: {
        tags: TAGS,
        summary: 'Parse an ISO 20022 message into JSON',
        description:
          'Detects the message type and version from the Document namespace and returns its business content as snake_case JSON ' +
          '(group_header, parties, accounts, agents, amounts as decimal strings, references, statuses, entries and balances). ' +
          'Accepts application/xml, text/xml or JSON { "xml": "..." }. No schema validation is done here (use /validate). ' +
          '400 INVALID_XML for malformed XML, 400 XML_DTD_FORBIDDEN for any DOCTYPE, 400 XML_TOO_DEEP past the nesting limit, ' +
          '413 above ISO20022_MAX_BYTES, 422 UNSUPPORTED_MESSAGE_TYPE for other messages.',
        body: xmlOrJsonBody,
        response: { 200: envelope({ type: 'object', additionalProperties: true }), ...commonErrors },
      },
    },
    async (req) => ({ data: parseMessage(xmlOf(req)) }),
  );

  app.post(
    '/validate',
    {
      bodyLimit: maxBytes,
      schema: {
        tags: TAGS,
        summary: 'Validate an ISO 20022 message (XSD + business rules)',
        description:
          'Validates the Document (and a head.001 AppHdr when present) against the official XSD of its namespace and runs business rules: ' +
          'NbOfTxs/CtrlSum, IBAN check digits, BIC format, ISO 4217 codes and decimals, date consistency, presence and uniqueness of references, ' +
          'statement totals and balance reconciliation. Always 200 with { valid, errors[] } for a supported, well-formed message; ' +
          'each error has line, column, path (XPath-like), message and kind (xsd | business). National variants (e.g. .ch.02) are checked ' +
          'against the base ISO schema. Accepts application/xml, text/xml or JSON { "xml": "..." }.',
        body: xmlOrJsonBody,
        response: {
          200: envelope({
                type: 'object',
                properties: {
                  valid: { type: 'boolean' },
                  message_type: { type: 'string' },
                  version: { type: 'string' },
                  namespace: { type: 'string' },
                  variant: { type: 'string' },
                  schemas: { type: 'object', additionalProperties: true },
                  checks: { type: 'object', properties: { xsd: { type: 'boolean' }, business: { type: 'boolean' } } },
                  notes: { type: 'array', items: { type: 'string' } },
                  errors: { type: 'array', items: issueSchema },
                },
              }),
          ...commonErrors,
        },
      },
    },
    async (req) => ({ data: validateMessage(xmlOf(req)) }),
  );

  app.post(
    '/generate',
    {
      bodyLimit: maxBytes,
      schema: {
        tags: TAGS,
        summary: 'Generate an ISO 20022 message from JSON',
        description:
          'Builds a message of `type` (pacs.008, pacs.002, pain.001, pain.002, camt.053, camt.054, camt.056, admi.002) in the default ' +
          'version or `version`. Amounts are decimal strings, formatted to the currency\'s ISO 4217 decimals. Missing identifiers ' +
          '(MsgId, PmtInfId, EndToEndId, TxId, UETR where the schema has it) are generated. The result is validated against its XSD and ' +
          'the business rules before it is returned (422 GENERATED_MESSAGE_INVALID otherwise). ' +
          'Response: the XML as application/xml by default; with `Accept: application/json`, { data: { xml, message_type, version, ' +
          'message_id, end_to_end_ids, uetrs, ... } }. With `business_application_header: true` (or an object with from/to/version), ' +
          'the output is <Envelope><AppHdr xmlns="…head.001.001.02">…</AppHdr><Document>…</Document></Envelope>.',
        body: {
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
        },
        response: {
          200: {
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
          },
          ...commonErrors,
        },
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const result = generateMessage(req.body);
      if (wantsJson(req)) return reply.type('application/json; charset=utf-8').send({ data: result });
      return reply.type('application/xml; charset=utf-8').send(result.xml);
    },
  );
}
