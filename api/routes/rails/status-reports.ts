import type { FastifyInstance } from 'fastify';
import { ingestRailStatusReport } from '../../../domain/rails/inbound-scope';
import { errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { statusReportBody, statusReportResponse, TAG } from '../../operations/rails/schemas';

/** pacs.002 status reports for submitted payments (the inbound path of the ISO 20022 rails). */
export function statusReportRoutes(app: FastifyInstance) {
  app.post<{ Body: { message: string } }>(
    '/status-reports',
    {
      schema: {
        tags: [TAG],
        summary: 'Ingest a rail status report (pacs.002) for submitted payments',
        description:
          'The inbound path of the ISO 20022 rails (Fedwire, RTP, FedNow, SEPA, SWIFT): `message` is a pacs.002 (any version the ISO 20022 module ' +
          'knows; XSD-validated). Each TxInfAndSts is matched to its payment by OrgnlEndToEndId (and OrgnlMsgId when given). ACSC settles and RJCT ' +
          'rejects the payment through its running workflow (signal `railSettlement`; a rejection voids the reservation with the ISO reason code); ' +
          'interim statuses (ACSP, ACTC, PDNG ...) are recorded. Per transaction the answer says signalled, recorded, already_final or unmatched. ' +
          'Sandbox keys report on their own payments (the caller plays the rail); in production only platform operators may post.',
        body: statusReportBody,
        response: { 200: statusReportResponse, ...errorResponses },
      },
    },
    async (request) => ({ data: await ingestRailStatusReport(principalOf(request), request.body.message) }),
  );
}
