import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelope, errorResponses } from '../../schemas';
import { getConfig } from '../../../iso20022/config';
import { generateMessage, parseMessage, supportedTypes, validateMessage } from '../../../iso20022/index';
import { wantsJson } from '../../operations/iso20022/presenters';
import { commonErrors, generateBody, generateResponse, TAGS, validateResponse, XML_TYPES, xmlOf, xmlOrJsonBody } from '../../operations/iso20022/schemas';

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
          'statement totals and balance reconciliation. Always 200 with { valid, errors[], warnings[] } for a supported, well-formed message; ' +
          'each issue has line, column, path (XPath-like), message, kind (xsd | business), code (the rule id, or schema) and source (the ' +
          'ISO 20022 rule, definition or usage guideline, or "platform rule: <reason>"). Rules the standard makes errors are errors; ' +
          'consistency checks real bank files legitimately break (statement totals and balances, dates, statement references) are ' +
          'warnings, and valid is true when there are only warnings. National variants (e.g. .ch.02) are checked ' +
          'against the base ISO schema. Accepts application/xml, text/xml or JSON { "xml": "..." }.',
        body: xmlOrJsonBody,
        response: {
          200: validateResponse,
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
          'the business rules before it is returned (422 GENERATED_MESSAGE_INVALID on any error or warning). ' +
          'Response: the XML as application/xml by default; with `Accept: application/json`, { data: { xml, message_type, version, ' +
          'message_id, end_to_end_ids, uetrs, ... } }. With `business_application_header: true` (or an object with from/to/version), ' +
          'the output is <Envelope><AppHdr xmlns="…head.001.001.02">…</AppHdr><Document>…</Document></Envelope>.',
        body: generateBody,
        response: {
          200: generateResponse,
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
