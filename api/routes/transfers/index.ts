import type { FastifyInstance } from 'fastify';
import { reviewTransfer, startTransfer } from '../../../domain/transfers/start';
import { getTransferWithProgress } from '../../../domain/transfers/visibility';
import { requestKeyOf } from '../../plugins/idempotency';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { createInput, decisionWaitSeconds, MAX_DECISION_WAIT_SECONDS } from '../../operations/transfers/input';
import { presentTransfer } from '../../operations/transfers/presenters';
import { fromLegacyBody, idParams, legacyTransferBody, reviewBody, transferBody, transferSchema, type LegacyTransferBody, type TransferBody } from '../../operations/transfers/schemas';

export default async function transferRoutes(app: FastifyInstance) {
  app.post<{ Body: TransferBody }>(
    '/api/v2/transfers',
    {
      schema: {
        tags: ['Transfers'],
        summary: 'Transfer between accounts',
        description:
          'The source account must be the caller\'s; the destination may be any account of the same environment. ' +
          'With workflow_enabled true (the default) a Temporal workflow validates, reserves the funds (pending entry), checks limits and risk ' +
          '(large transfers wait for an operator review), posts and completes; a failure after the reserve voids it (compensation). ' +
          'The answer is 201 with status pending, workflow_id and estimated_completion; with the header `Prefer: wait=N` (RFC 7240, N seconds, at most ' +
          `${MAX_DECISION_WAIT_SECONDS}) the API first waits up to N seconds for the workflow to decide (status completed, pending_review or failed) ` +
          'and says so with `Preference-Applied: wait=N`; past N it answers pending as without the header. A retry with the same Idempotency-Key replays the first answer at once ' +
          '(GET /api/v2/transfers/{id} has the later state). With workflow_enabled false the transfer is posted ' +
          'in one database transaction and returns completed. The fee (fees.transfer_fee) comes from the fee schedule and is paid by the sender.',
        body: transferBody,
        headers: { type: 'object', properties: { prefer: { type: 'string', maxLength: 200, description: 'wait=N: wait up to N seconds for a workflow transfer to be decided' } } },
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const workflow = b.workflow_enabled !== false;
      const wait = workflow ? decisionWaitSeconds(request.headers.prefer) : undefined;
      const t = await startTransfer(app.transfers, createInput(principalOf(request), b, requestKeyOf(request)), { workflow, waitMs: wait && wait * 1000 });
      if (wait) reply.header('preference-applied', `wait=${wait}`);
      return reply.code(201).send({ data: presentTransfer(t) });
    },
  );

  app.post<{ Body: LegacyTransferBody }>(
    '/api/transfers',
    {
      schema: {
        tags: ['Transfers (unversioned)'],
        summary: 'Transfer (legacy shape): numeric amount, currency and description',
        description:
          'Maps onto POST /api/v2/transfers: currency is asset_code, description is both reference and description, and the transfer is ' +
          'posted immediately (workflow_enabled false). amount may be a JSON number (at most 15 significant digits, no exponent) or a decimal string.',
        body: legacyTransferBody,
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = fromLegacyBody(request.body);
      const t = await startTransfer(app.transfers, createInput(principalOf(request), b, requestKeyOf(request)), { workflow: false });
      return reply.code(201).send({ data: presentTransfer(t) });
    },
  );

  app.get<{ Params: { uuid: string } }>(
    '/api/v2/transfers/:uuid',
    {
      schema: {
        tags: ['Transfers'],
        summary: 'One transfer, with the workflow\'s live progress while it runs',
        params: idParams,
        response: { 200: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { transfer, progress } = await getTransferWithProgress(principalOf(request), request.params.uuid);
      return { data: presentTransfer(transfer, progress) };
    },
  );

  app.post<{ Params: { uuid: string }; Body: { decision: 'approve' | 'reject'; reason?: string } }>(
    '/api/v2/transfers/:uuid/review',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Approve or reject a transfer held for review (platform operators only)',
        params: idParams,
        body: reviewBody,
        response: { 202: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const t = await reviewTransfer(principalOf(request), request.params.uuid, request.body);
      return reply.code(202).send({ data: presentTransfer(t) });
    },
  );
}
