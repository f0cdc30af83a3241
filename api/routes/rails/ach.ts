import type { FastifyInstance } from 'fastify';
import { requestAchFile, type RequestEntry } from '../../../domain/ach/files';
import { ingestAchReturns } from '../../../domain/rails/inbound-scope';
import { errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { presentAchFile } from '../../operations/rails/presenters';
import { achFileBody, achFileResponse, achReturnBody, achReturnResponse, TAG } from '../../operations/rails/schemas';

/** ACH: build (or preview) a NACHA file, ingest a return file. */
export function achRoutes(app: FastifyInstance) {
  app.post<{ Body: { entries?: RequestEntry[]; company_name?: string; company_id?: string; transmit?: boolean } }>(
    '/ach/files',
    {
      schema: {
        tags: [TAG],
        summary: 'Build a NACHA ACH file (operators); preview your queued ACH payments (customers)',
        description:
          'Operators: from `entries` when given, else from the environment\'s submitted ACH payments not yet in a file (the queue the scheduled ' +
          'file workflow sends before every ACH cut-off). `transmit` hands the file to the ACH operator (sandbox operator in sandbox); only a ' +
          'transmitted file takes its payments out of the queue (they settle on their effective date once the operator has them); without ' +
          '`transmit` the file is stored as built and the payments wait for the next transmitted file. Customers: building from `entries` and ' +
          '`transmit` are 403 ADMIN_REQUIRED (nothing is debited for arbitrary entries; your money reaches an ACH file only through a payment, ' +
          'POST /payments with an ACH rail); without them you get a read-only preview of your own queued payments as a file (status `preview`, ' +
          '`id` null, nothing stored or claimed). Batches by SEC code (PPD/CCD) and effective date; 94-character records, blocking factor 10. ' +
          'JSON answer carries `content` and a summary; with Accept: text/plain the file itself.',
        body: achFileBody,
        response: { 201: achFileResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body ?? {};
      const f = await requestAchFile(principalOf(request), { entries: b.entries, companyName: b.company_name, companyId: b.company_id, transmit: b.transmit }, new Date());
      const accept = String(request.headers.accept ?? '');
      if (accept.includes('text/plain') && !accept.includes('application/json')) {
        return reply.code(201).type('text/plain; charset=utf-8').header('content-disposition', `attachment; filename="${f.id ?? 'preview'}.ach"`).serializer((x: unknown) => x as string).send(f.content);
      }
      return reply.code(201).send({ data: presentAchFile(f) });
    },
  );

  app.post<{ Body: { file: string } }>(
    '/ach/returns',
    {
      schema: {
        tags: [TAG],
        summary: 'Ingest an ACH return file (NACHA)',
        description:
          'Each return entry (addenda 99) names the original trace number and reason (R01...). Its payment is compensated: a running workflow gets the ' +
          'return as a signal and reverses the posted entry; a completed payment is reversed here. Unknown trace numbers are reported as unmatched. ' +
          'Sandbox keys apply returns to their own payments (the caller plays the RDFI); in production only platform operators may post return files.',
        body: achReturnBody,
        response: { 200: achReturnResponse, ...errorResponses },
      },
    },
    async (request) => ({ data: await ingestAchReturns(principalOf(request), request.body.file) }),
  );
}
