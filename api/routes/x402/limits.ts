/**
 * Spending limits and payer wallets of the x402 area. The spec shows GET /api/v2/x402/spending-limits;
 * the write methods are ours (docs/x402.md): PUT/DELETE per payer wallet and per agent key.
 */
import type { FastifyInstance } from 'fastify';
import { defaultLimit, listLimits, setLimit, type LimitSubject } from '../../../domain/x402/limits';
import { listWallets, registerWallet, removeWallet, walletRegistrationMessage } from '../../../domain/x402/wallets';
import { envelope, errorResponses } from '../../schemas';
import { caller } from '../../operations/caller';
import { principalOf } from '../../types';
import type { Principal } from '../../../domain/auth/principal';
import { limitSchema, presentLimit, presentWallet, walletSchema } from '../../operations/x402/presenters';

/** Who sets a limit: the caller, and whether its key is an agent's (agents set none). */
const limitSetter = (request: { principal?: Principal }) => ({ ...caller(request), agent: principalOf(request).agent === true });

const TAGS = ['x402'];
const usdc = { type: ['string', 'null'], pattern: '^[0-9]{1,20}(\\.[0-9]{1,6})?$', maxLength: 27, description: 'USDC (at most 6 decimals); null = the platform default' };
const limitBody = {
  type: 'object',
  additionalProperties: false,
  required: ['per_request_max', 'daily_max'],
  properties: { per_request_max: usdc, daily_max: usdc },
};
const address = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const SUBJECTS: Record<string, { type: LimitSubject; param: string; schema: object }> = {
  payers: { type: 'payer', param: 'address', schema: address },
  agents: { type: 'agent', param: 'key_id', schema: { type: 'string', minLength: 1, maxLength: 100 } },
};

export default async function x402LimitRoutes(app: FastifyInstance) {
  app.get(
    '/api/v2/x402/spending-limits',
    {
      schema: {
        tags: TAGS,
        summary: "Spending limits of the caller's payer wallets and agent keys, with today's spending",
        description: 'Limits apply per payer wallet and per agent (an API key created with agent: true), per request and per UTC day, in USDC; a payment over either is refused with 402 SPENDING_LIMIT_EXCEEDED before anything settles.',
        response: {
          200: envelope({
            type: 'object',
            properties: {
              payers: { type: 'array', items: limitSchema },
              agents: { type: 'array', items: limitSchema },
              defaults: { type: 'object', additionalProperties: true },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { userId, environment } = caller(request);
      const all = await listLimits(userId, environment);
      const d = (t: LimitSubject) => ({ per_request_max: defaultLimit(t).perRequestMax, daily_max: defaultLimit(t).dailyMax });
      return { data: { payers: all.payers.map(presentLimit), agents: all.agents.map(presentLimit), defaults: { payer: d('payer'), agent: d('agent') } } };
    },
  );

  for (const [segment, s] of Object.entries(SUBJECTS)) {
    const params = { type: 'object', required: [s.param], properties: { [s.param]: s.schema } };
    app.put<{ Params: Record<string, string>; Body: { per_request_max: string | null; daily_max: string | null } }>(
      `/api/v2/x402/spending-limits/${segment}/:${s.param}`,
      {
        schema: {
          tags: TAGS,
          summary: s.type === 'payer' ? 'Set the spending limit of one of your payer wallets' : 'Set the budget of one of your agent keys',
          params,
          body: limitBody,
          response: { 200: envelope(limitSchema), ...errorResponses },
        },
      },
      async (request) => {
        return { data: presentLimit(await setLimit(limitSetter(request), s.type, request.params[s.param], { perRequestMax: request.body.per_request_max, dailyMax: request.body.daily_max })) };
      },
    );
    app.delete<{ Params: Record<string, string> }>(
      `/api/v2/x402/spending-limits/${segment}/:${s.param}`,
      { schema: { tags: TAGS, summary: 'Go back to the platform default limit', params, response: { 200: envelope(limitSchema), ...errorResponses } } },
      async (request) => {
        return { data: presentLimit(await setLimit(limitSetter(request), s.type, request.params[s.param], { perRequestMax: null, dailyMax: null })) };
      },
    );
  }

  app.post<{ Body: { address: string; account_id: string; signature: string; label?: string } }>(
    '/api/v2/x402/wallets',
    {
      schema: {
        tags: TAGS,
        summary: 'Register a payer wallet: payments it signs settle from the account (sandbox) and its limits are yours to set',
        description:
          'signature is the wallet\'s EIP-191 personal_sign of: "Register wallet <checksummed address> to pay from account <account_id> (<environment>) on the Multi-Asset Banking Platform". A wallet already registered by another customer is 409.',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['address', 'account_id', 'signature'],
          properties: { address, account_id: { type: 'string', minLength: 1, maxLength: 100 }, signature: { type: 'string', pattern: '^0x[0-9a-fA-F]+$', maxLength: 600 }, label: { type: 'string', maxLength: 100 } },
        },
        response: { 201: envelope(walletSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const w = await registerWallet(caller(request), { address: b.address, accountId: b.account_id, signature: b.signature, label: b.label });
      return reply.code(201).send({ data: presentWallet(w) });
    },
  );

  app.get<{ Querystring: { address?: string; account_id?: string } }>(
    '/api/v2/x402/wallets',
    {
      schema: {
        tags: TAGS,
        summary: 'Your payer wallets; with address and account_id, also the message to sign to register that pair',
        querystring: { type: 'object', additionalProperties: false, properties: { address, account_id: { type: 'string', minLength: 1, maxLength: 100 } } },
        response: { 200: envelope({ type: 'array', items: walletSchema }, { meta: { type: 'object', additionalProperties: true } }), ...errorResponses },
      },
    },
    async (request) => {
      const { userId, environment } = caller(request);
      const q = request.query;
      const meta = q.address && q.account_id ? { registration_message: walletRegistrationMessage(q.address, q.account_id, environment) } : {};
      return { data: (await listWallets(userId, environment)).map(presentWallet), meta };
    },
  );

  app.delete<{ Params: { address: string } }>(
    '/api/v2/x402/wallets/:address',
    { schema: { tags: TAGS, summary: 'Remove one of your payer wallets', params: { type: 'object', required: ['address'], properties: { address } }, response: { 200: envelope(walletSchema), ...errorResponses } } },
    async (request) => {
      const { userId, environment } = caller(request);
      return { data: presentWallet(await removeWallet(userId, environment, request.params.address)) };
    },
  );
}
