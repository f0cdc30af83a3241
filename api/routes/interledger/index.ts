import type { FastifyInstance } from 'fastify';
import { createQuote } from '../../../domain/interledger';
import { getOwnIlpPayment, getOwnQuote, startIlpPayment } from '../../../domain/interledger/payments';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { presentPayment, presentQuote } from '../../operations/interledger/presenters';
import { idParams, paymentBody, paymentSchema, quoteBody, quoteSchema, TAG } from '../../operations/interledger/schemas';

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
        body: quoteBody,
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
        params: idParams,
        response: { 200: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentQuote(await getOwnQuote(principalOf(request), request.params.id)) }),
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
        body: paymentBody,
        response: { 201: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const view = await startIlpPayment({ userId: pr.userId, environment: pr.environment, quoteId: request.body.quote_id, accountId: request.body.account_id });
      return reply.code(201).send({ data: presentPayment(view) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/payments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'An Interledger payment with its packets',
        params: idParams,
        response: { 200: envelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentPayment(await getOwnIlpPayment(principalOf(request), request.params.id)) }),
  );
}
