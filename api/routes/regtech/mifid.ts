/**
 * MiFID II transaction reports: build one for a trade (NEWT or CANC), read them, get the file,
 * submit it to the competent authority; the instrument register. Each handler is caller → one
 * domain call → presenter (docs/regtech.md, "MiFID II").
 */
import type { FastifyInstance } from 'fastify';
import { createReport, getOwnReport, getOwnReportXml, listInstruments, listOwnReports, registerInstrument, submitReport, REPORT_STATUSES, MIFID_JURISDICTIONS, type RegisterInstrumentRequest, type ReportFilter, type ReportRequest } from '../../../domain/regtech/mifid';
import { pageParams, paginate } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';
import { instrumentBody, presentReport, TAG, REPORTS, presentInstrument, reportSchema, instrumentSchema, idParams, name, type IdParams } from '../../operations/regtech/mifid';

export default async function mifidRoutes(app: FastifyInstance) {
  app.post<{ Body: ReportRequest }>(
    REPORTS,
    {
      schema: {
        tags: [TAG],
        summary: 'Build a MiFID II transaction report (RTS 22, ISO 20022 auth.016) for one of your trades',
        description:
          'transaction_id: a GCU buy (gbuy_…) or DeFi swap of yours that completed, whose received (else given) asset has an ISIN in the ' +
          'instrument register (else 422 INSTRUMENT_NOT_REPORTABLE). report_type NEWT reports it (client identifies the customer: lei, or ' +
          'first_name, surname, birth_date, nationality and optionally national_id; CONCAT is formed otherwise); CANC cancels the NEWT of ' +
          'the same trade that was submitted or accepted and not yet cancelled (422 NO_REPORT_TO_CANCEL, REPORT_ALREADY_CANCELLED). ' +
          `jurisdiction: the EU/EEA member state whose competent authority receives it (${MIFID_JURISDICTIONS.join(', ')}; else 422 ` +
          'UNSUPPORTED_JURISDICTION). The file (head.003 BizData: head.001 AppHdr + auth.016 Document) is validated against ESMA’s schemas ' +
          'in MIFID_XSD_DIR: status validated when it passed, draft with xsd_validated false and xsd_reason otherwise (never claimed valid ' +
          'without the schemas). A NEWT’s deadline_at is the end (UTC) of the working day after the trade (TARGET2 calendar). Emits ' +
          'compliance.report.generated. Unknown or another user’s trade: 404 TRANSACTION_NOT_FOUND. docs/regtech.md maps every field.',
        body: {
          type: 'object',
          required: ['transaction_id', 'report_type', 'jurisdiction'],
          additionalProperties: false,
          properties: {
            transaction_id: { type: 'string', minLength: 1, maxLength: 100 },
            report_type: { type: 'string', enum: ['NEWT', 'CANC'] },
            jurisdiction: { type: 'string', minLength: 2, maxLength: 2, description: 'ISO 3166 alpha-2 code of an EU/EEA member state' },
            client: {
              type: ['object', 'null'],
              additionalProperties: false,
              description: 'The customer (buyer or seller): lei for a legal entity, or a natural person',
              properties: {
                lei: { type: ['string', 'null'], maxLength: 40, description: 'ISO 17442 LEI (check digits verified)' },
                first_name: name,
                surname: name,
                birth_date: { type: ['string', 'null'], maxLength: 10, description: 'YYYY-MM-DD' },
                nationality: { type: ['string', 'null'], maxLength: 2, description: 'ISO 3166 alpha-2' },
                national_id: { type: ['string', 'null'], maxLength: 40, description: 'The national client identifier (without the country code)' },
                national_id_type: { type: ['string', 'null'], enum: ['NIDN', 'CCPT', null] },
              },
            },
          },
        },
        response: { 201: envelope(reportSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentReport(await createReport(principalOf(request), request.body)) }),
  );

  app.get<{ Querystring: ReportFilter & { page?: number; per_page?: number } }>(
    REPORTS,
    {
      schema: {
        tags: [TAG],
        summary: 'Your MiFID II reports, newest first',
        description: 'Filters: status, transaction_id. Paginated.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { status: { type: 'string', enum: [...REPORT_STATUSES] }, transaction_id: { type: 'string', minLength: 1, maxLength: 100 }, ...paginationQuery },
        },
        response: { 200: paginatedEnvelope(reportSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listOwnReports(principalOf(request), { status: request.query.status, transaction_id: request.query.transaction_id }, pp);
      return paginate(request, items.map(presentReport), total, pp);
    },
  );

  app.get<IdParams>(
    `${REPORTS}/:id`,
    { schema: { tags: [TAG], summary: 'A MiFID II report of yours', params: idParams, response: { 200: envelope(reportSchema), ...errorResponses } } },
    async (request) => ({ data: presentReport(await getOwnReport(principalOf(request), request.params.id)) }),
  );

  app.get<IdParams>(
    `${REPORTS}/:id/xml`,
    {
      schema: {
        tags: [TAG],
        summary: 'The report file (application/xml)',
        description: 'head.003 BizData holding the head.001 AppHdr and the auth.016.001.01 Document, as built and stored.',
        params: idParams,
        response: { 200: { description: 'The report file', content: { 'application/xml': { schema: { type: 'string' } } } }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id, xml } = await getOwnReportXml(principalOf(request), request.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `inline; filename="${id}.xml"`).serializer((x: unknown) => x as string).send(xml);
    },
  );

  app.post<IdParams>(
    `${REPORTS}/:id/submit`,
    {
      schema: {
        tags: [TAG],
        summary: 'Submit the report to the competent authority',
        description:
          'A draft is validated again first (422 REPORT_NOT_VALIDATED when the schemas still fail or are absent). Then validated → submitted → ' +
          'accepted or rejected with the authority’s feedback. Sandbox: a deterministic stand-in authority that rejects a file failing the ' +
          'schemas (XSD_INVALID), a NEWT whose transaction reference number is already on file (DUPLICATE_TRN) and a CANC of one that is not ' +
          '(TRN_NOT_FOUND). Production: 503 MIFID_AUTHORITY_NOT_CONFIGURED (no ARM connection is configured), nothing changes. A decided ' +
          'report: 422 REPORT_ALREADY_DECIDED.',
        params: idParams,
        response: { 200: envelope(reportSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentReport(await submitReport(principalOf(request), request.params.id)) }),
  );

  app.get(
    '/api/v2/regtech/mifid/instruments',
    { schema: { tags: [TAG], summary: 'The MiFID II instrument register: reportable assets with ISIN, CFI and full name', response: { 200: envelope({ type: 'array', items: instrumentSchema }), ...errorResponses } } },
    async () => ({ data: (await listInstruments()).map(presentInstrument) }),
  );

  app.post<{ Body: RegisterInstrumentRequest }>(
    '/api/v2/regtech/mifid/instruments',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Add or replace an asset in the MiFID II instrument register (platform operators only)',
        description: 'isin: ISO 6166 with a valid check digit (422 INVALID_ISIN); cfi: ISO 10962, six capital letters (422 INVALID_CFI); asset_code: a platform asset.',
        body: instrumentBody,
        response: { 201: envelope(instrumentSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentInstrument(await registerInstrument(principalOf(request), request.body)) }),
  );
}
