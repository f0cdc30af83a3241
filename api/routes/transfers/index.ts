import type { FastifyInstance } from 'fastify';
import { getPool } from '../../../domain/db/pool';
import {
  createImmediateTransfer,
  createWorkflowTransfer,
  getTransfer,
  type Transfer,
} from '../../../domain/transfers';
import { queryTransferProgress, signalTransferReview, startTransferWorkflow } from '../../../domain/transfers/workflow';
import { ApiError, notFound } from '../../errors';
import { presentTransfer, transferSchema } from '../../presenters/banking';
import { decimalString, envelope, errorResponses, metadataSchema } from '../../schemas';
import { principalOf } from '../../types';
import type { Principal } from '../../../domain/auth/principal';

interface TransferBody {
  from_account: string;
  to_account: string;
  amount: string;
  asset_code: string;
  reference?: string;
  description?: string;
  workflow_enabled?: boolean;
  metadata?: Record<string, unknown>;
}

/** A transfer is visible to its sender and to the owner of the destination account. */
async function visibleTransfer(p: Principal, id: string): Promise<Transfer> {
  const t = await getTransfer(id, { environment: p.environment });
  if (!t) throw notFound('Transfer');
  if (t.userId !== p.userId) {
    const { rows } = await getPool().query('SELECT 1 FROM accounts WHERE id = $1 AND user_id = $2', [t.toAccountId, p.userId]);
    if (rows.length === 0) throw notFound('Transfer');
  }
  return t;
}

/**
 * Unversioned /api/transfers takes a JSON number. Only numbers whose shortest decimal form is
 * exact (no exponent, at most 15 significant digits) are accepted, so no float rounding leaks in.
 */
export function numberToDecimalString(n: number): string {
  const s = String(n);
  if (!Number.isFinite(n) || /e/i.test(s) || s.replace(/^-?0*\.?0*/, '').replace('.', '').length > 15) {
    throw new ApiError(422, 'INVALID_AMOUNT', 'amount must be a plain decimal with at most 15 significant digits; send a decimal string to /api/v2/transfers for more', {
      source: { pointer: '/amount' },
    });
  }
  return s;
}

export default async function transferRoutes(app: FastifyInstance) {
  async function create(p: Principal, b: TransferBody) {
    const input = {
      userId: p.userId,
      environment: p.environment,
      fromAccountId: b.from_account,
      toAccountId: b.to_account,
      amount: b.amount,
      assetCode: b.asset_code,
      reference: b.reference,
      description: b.description,
      metadata: b.metadata,
    };
    if (b.workflow_enabled === false) return createImmediateTransfer(input);
    const t = await createWorkflowTransfer(input);
    await startTransferWorkflow(t).catch(() => {
      throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The transfer could not be started; nothing was moved. Retry later.');
    });
    return t;
  }

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
          'The answer is 201 with status pending, workflow_id and estimated_completion. With workflow_enabled false the transfer is posted ' +
          'in one database transaction and returns completed. The fee (fees.transfer_fee) comes from the fee schedule and is paid by the sender.',
        body: {
          type: 'object',
          required: ['from_account', 'to_account', 'amount', 'asset_code'],
          additionalProperties: false,
          properties: {
            from_account: { type: 'string', minLength: 1, maxLength: 64 },
            to_account: { type: 'string', minLength: 1, maxLength: 64 },
            amount: decimalString,
            asset_code: { type: 'string', minLength: 1, maxLength: 12 },
            reference: { type: 'string', maxLength: 140 },
            description: { type: 'string', maxLength: 500 },
            workflow_enabled: { type: 'boolean', default: true },
            metadata: metadataSchema,
          },
        },
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const t = await create(principalOf(request), request.body);
      return reply.code(201).send({ data: presentTransfer(t) });
    },
  );

  app.post<{ Body: { from_account: string; to_account: string; amount: number | string; currency: string; description?: string } }>(
    '/api/transfers',
    {
      schema: {
        tags: ['Transfers (unversioned)'],
        summary: 'Transfer (legacy shape): numeric amount, currency and description',
        description:
          'Maps onto POST /api/v2/transfers: currency is asset_code, description is both reference and description, and the transfer is ' +
          'posted immediately (workflow_enabled false). amount may be a JSON number (at most 15 significant digits, no exponent) or a decimal string.',
        body: {
          type: 'object',
          required: ['from_account', 'to_account', 'amount', 'currency'],
          additionalProperties: false,
          properties: {
            from_account: { type: 'string', minLength: 1, maxLength: 64 },
            to_account: { type: 'string', minLength: 1, maxLength: 64 },
            // Zero is refused by the amount rules (domain/money), as for every amount.
            amount: { anyOf: [{ type: 'number', minimum: 0 }, decimalString] },
            currency: { type: 'string', minLength: 1, maxLength: 12 },
            description: { type: 'string', maxLength: 140 },
          },
        },
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const t = await create(principalOf(request), {
        from_account: b.from_account,
        to_account: b.to_account,
        amount: typeof b.amount === 'number' ? numberToDecimalString(b.amount) : b.amount,
        asset_code: b.currency,
        reference: b.description,
        description: b.description,
        workflow_enabled: false,
      });
      return reply.code(201).send({ data: presentTransfer(t) });
    },
  );

  const idParams = { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string', maxLength: 64 } } };

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
      const t = await visibleTransfer(principalOf(request), request.params.uuid);
      const running = t.workflowId && (t.status === 'pending' || t.status === 'pending_review');
      const progress = running ? await queryTransferProgress(t.workflowId!) : undefined;
      return { data: presentTransfer(t, progress) };
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
        body: {
          type: 'object',
          required: ['decision'],
          additionalProperties: false,
          properties: { decision: { type: 'string', enum: ['approve', 'reject'] }, reason: { type: 'string', maxLength: 500 } },
        },
        response: { 202: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const t = await getTransfer(request.params.uuid, { environment: p.environment });
      if (!t) throw notFound('Transfer');
      if (t.status !== 'pending_review' || !t.workflowId) {
        throw new ApiError(422, 'NOT_AWAITING_REVIEW', `Transfer is ${t.status}, not awaiting review`);
      }
      await signalTransferReview(t.workflowId, { ...request.body, reviewer: p.email });
      return reply.code(202).send({ data: presentTransfer(t) });
    },
  );
}
