import type { FastifyInstance } from 'fastify';
import { createIlpPayment, createQuote, getIlpPayment, getQuote, openPaymentsAmount, type IlpPayment, type IlpQuote } from '../../../domain/interledger';
import { startIlpPaymentWorkflow } from '../../../domain/interledger/workflow';
import { ApiError, notFound } from '../../errors';
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Interledger';
const opAmount = { type: 'object', properties: { value: { type: 'string' }, assetCode: { type: 'string' }, assetScale: { type: 'integer' } } };

const quoteSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    receiver: { type: 'string' },
    wallet_address: { type: 'string' },
    send_amount: { type: 'string' },
    send_currency: { type: 'string' },
    fee: { type: 'string' },
    receive_amount: { type: 'string' },
    receive_currency: { type: 'string' },
    fx_rate: { type: 'string' },
    expires_at: timestamp,
    expired: { type: 'boolean' },
    used: { type: 'boolean' },
    open_payments: { type: 'object', properties: { debitAmount: opAmount, receiveAmount: opAmount, fee: opAmount } },
    created_at: timestamp,
  },
};

const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quote_id: { type: 'string' },
    account_id: { type: 'string' },
    status: { type: 'string' },
    workflow_id: { type: 'string' },
    destination: { type: ['string', 'null'] },
    execution_condition: { type: ['string', 'null'] },
    fulfillment: { type: ['string', 'null'] },
    ilp_reject_code: { type: ['string', 'null'] },
    packets: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, base64: { type: 'string' } } } },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation_executed: { type: 'boolean' },
    quote: quoteSchema,
    created_at: timestamp,
    completed_at: { type: ['string', 'null'] },
    failed_at: { type: ['string', 'null'] },
  },
};

function presentQuote(q: IlpQuote) {
  return {
    id: q.id,
    receiver: q.receiver,
    wallet_address: q.walletAddress,
    send_amount: q.sendAmount,
    send_currency: q.sendCurrency,
    fee: q.feeAmount,
    receive_amount: q.receiveAmount,
    receive_currency: q.receiveCurrency,
    fx_rate: q.rate,
    expires_at: q.expiresAt.toISOString(),
    // The API's clock; payment creation checks expiry against the database's.
    expired: q.expiresAt.getTime() <= Date.now(),
    used: q.usedAt !== null,
    open_payments: {
      debitAmount: openPaymentsAmount(q.sendAmount, q.sendCurrency, q.sendScale),
      receiveAmount: openPaymentsAmount(q.receiveAmount, q.receiveCurrency, q.receiveScale),
      fee: openPaymentsAmount(q.feeAmount, q.sendCurrency, q.sendScale),
    },
    created_at: q.createdAt.toISOString(),
  };
}

function presentPayment(p: IlpPayment, q: IlpQuote) {
  return {
    id: p.id,
    quote_id: p.quoteId,
    account_id: p.accountId,
    status: p.status,
    workflow_id: p.workflowId,
    destination: p.destination,
    execution_condition: p.executionCondition,
    fulfillment: p.fulfillment,
    ilp_reject_code: p.ilpRejectCode,
    packets: p.packets,
    failure: p.failureCode ? { code: p.failureCode, reason: p.failureReason ?? '' } : null,
    compensation_executed: p.compensationExecuted,
    quote: presentQuote(q),
    created_at: p.createdAt.toISOString(),
    completed_at: p.completedAt?.toISOString() ?? null,
    failed_at: p.failedAt?.toISOString() ?? null,
  };
}

export default async function interledgerRoutes(app: FastifyInstance) {
  app.post<{ Body: { send_amount: string; send_currency: string; receive_currency: string; receiver: string } }>(
    '/quotes',
    {
      schema: {
        tags: [TAG],
        summary: 'Quote an Interledger payment',
        description:
          'Receiver is a payment pointer ($wallet.example/alice) or wallet address URL. The quote fixes the fee (0.5 % of send_amount), the FX rate ' +
          '(latest rates) and the receive amount (rounded down) until expires_at (5 minutes); amounts are also given in Open Payments form.',
        body: {
          type: 'object',
          required: ['send_amount', 'send_currency', 'receive_currency', 'receiver'],
          additionalProperties: false,
          properties: {
            send_amount: decimalString,
            send_currency: { type: 'string', minLength: 1, maxLength: 12 },
            receive_currency: { type: 'string', minLength: 1, maxLength: 12 },
            receiver: { type: 'string', minLength: 3, maxLength: 500 },
          },
        },
        response: { 201: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const q = await createQuote({ userId: pr.userId, environment: pr.environment, sendAmount: b.send_amount, sendCurrency: b.send_currency, receiveCurrency: b.receive_currency, receiver: b.receiver });
      return reply.code(201).send({ data: presentQuote(q) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/quotes/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'An Interledger quote: amounts, fee, FX rate, expiry and whether it was used',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const q = await getQuote(request.params.id);
      if (!q || q.userId !== pr.userId || q.environment !== pr.environment) throw notFound('Quote');
      return { data: presentQuote(q) };
    },
  );

  app.post<{ Body: { quote_id: string; account_id: string } }>(
    '/payments',
    {
      schema: {
        tags: [TAG],
        summary: 'Pay a quote over Interledger',
        description:
          'Spends the quote once (a second use is 422 QUOTE_ALREADY_USED; an expired quote 422 QUOTE_EXPIRED). A workflow reserves the send amount on ' +
          'account_id, sends an ILP Prepare (SHA-256 condition) through the connector, posts on Fulfill and voids on Reject (ILP error code in the failure).',
        body: {
          type: 'object',
          required: ['quote_id', 'account_id'],
          additionalProperties: false,
          properties: { quote_id: { type: 'string', minLength: 1, maxLength: 64 }, account_id: { type: 'string', minLength: 1, maxLength: 64 } },
        },
        response: { 201: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const p = await createIlpPayment({ userId: pr.userId, environment: pr.environment, quoteId: request.body.quote_id, accountId: request.body.account_id });
      const q = (await getQuote(p.quoteId))!;
      await startIlpPaymentWorkflow(p, q).catch(() => {
        throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The payment could not be started; nothing was moved. Retry later.');
      });
      return reply.code(201).send({ data: presentPayment(p, q) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/payments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'An Interledger payment with its packets',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const p = await getIlpPayment(request.params.id);
      if (!p || p.userId !== pr.userId || p.environment !== pr.environment) throw notFound('Payment');
      return { data: presentPayment(p, (await getQuote(p.quoteId))!) };
    },
  );
}
