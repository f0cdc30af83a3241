/**
 * x402 HTTP-native payments (docs/x402.md): protocol status, supported networks, monetized
 * endpoint registration (operators), payment history, spending limits and payer wallets. The 402
 * exchange itself is api/plugins/x402.ts (monetized routes) and api/routes/sms (SMS send).
 */
import type { FastifyInstance } from 'fastify';
import { registerEndpoint, deactivateEndpoint, listEndpoints, routePattern } from '../../../domain/x402/endpoints';
import { facilitatorFor, facilitatorReachability } from '../../../domain/x402/facilitator';
import { listPayments } from '../../../domain/x402/history';
import { networksFor, usdcAsset } from '../../../domain/x402/networks';
import { payToAddress, X402_VERSION } from '../../../domain/x402/requirements';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';
import { baseUrlOf, caller } from '../../operations/caller';
import { endpointSchema, paymentSchema, presentEndpoint, presentPayment } from '../../operations/x402/presenters';
import limitRoutes from './limits';
import facilitatorRoutes from './facilitator';

export const X402_TAG = 'x402';
const TAGS = [X402_TAG];

function supportedNetworks(environment: 'sandbox' | 'production') {
  return networksFor(environment).map((n) => {
    const a = usdcAsset(n);
    return {
      network: n.network,
      name: n.name,
      chain_id: n.chainId,
      testnet: n.testnet,
      schemes: ['exact'],
      assets: [{ symbol: a.symbol, address: a.address, decimals: a.decimals, eip712: { name: a.eip712.name, version: a.eip712.version } }],
    };
  });
}

const networkSchema = {
  type: 'object',
  properties: {
    network: { type: 'string' },
    name: { type: 'string' },
    chain_id: { type: 'integer' },
    testnet: { type: 'boolean' },
    schemes: { type: 'array', items: { type: 'string' } },
    assets: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
};

export default async function x402Routes(app: FastifyInstance) {
  app.get(
    '/api/v2/x402/status',
    {
      schema: {
        tags: TAGS,
        summary: 'Protocol status: networks, assets and whether the facilitator answers (measured now)',
        response: {
          200: envelope({
            type: 'object',
            properties: {
              x402_version: { type: 'integer' },
              environment: { type: 'string' },
              networks: { type: 'array', items: networkSchema },
              pay_to: { type: ['string', 'null'] },
              facilitator: { type: 'object', additionalProperties: true },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { environment } = caller(request);
      const f = facilitatorFor(environment);
      const reach = await facilitatorReachability(environment);
      let payTo: string | null = null;
      try {
        payTo = payToAddress(environment);
      } catch {
        payTo = null;
      }
      return {
        data: {
          x402_version: X402_VERSION,
          environment,
          networks: supportedNetworks(environment),
          pay_to: payTo,
          facilitator: { name: f.name, url: f.url(baseUrlOf(request)), reachable: reach.reachable, latency_ms: reach.latency_ms, error: reach.error, kinds: reach.kinds },
        },
      };
    },
  );

  app.get(
    '/api/v2/x402/supported',
    {
      schema: {
        tags: TAGS,
        summary: 'Supported networks and assets (USDC by EIP-3009 authorization, scheme exact)',
        response: {
          200: envelope({ type: 'object', properties: { x402_version: { type: 'integer' }, kinds: { type: 'array', items: { type: 'object', additionalProperties: true } }, networks: { type: 'array', items: networkSchema } } }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { environment } = caller(request);
      return {
        data: {
          x402_version: X402_VERSION,
          kinds: networksFor(environment).map((n) => ({ x402Version: X402_VERSION, scheme: 'exact', network: n.network })),
          networks: supportedNetworks(environment),
        },
      };
    },
  );

  app.post<{ Body: { path: string; price_usd_cents: number; network: string; asset: string; description: string } }>(
    '/api/v2/x402/endpoints',
    {
      config: { admin: true },
      schema: {
        tags: TAGS,
        summary: 'Monetize a GET route of the platform in this environment (platform operators only)',
        description:
          'An unpaid request to the route then gets 402 with the X-Payment-* and PAYMENT-REQUIRED headers; a paid retry is verified, served and then settled. Registering a path again replaces its price. The path is the route as documented ("/api/v2/gcu/info", "/api/v2/accounts/{id}").',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'price_usd_cents', 'network', 'asset', 'description'],
          properties: {
            path: { type: 'string', minLength: 1, maxLength: 300 },
            price_usd_cents: { type: 'integer', minimum: 1, maximum: 100000 },
            network: { type: 'string', maxLength: 64, examples: ['eip155:8453'] },
            asset: { type: 'string', maxLength: 64, description: 'USDC, or its contract address on the network' },
            description: { type: 'string', minLength: 1, maxLength: 500 },
          },
        },
        response: { 201: envelope(endpointSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const e = await registerEndpoint(
        caller(request),
        { path: b.path, priceUsdCents: b.price_usd_cents, network: b.network, asset: b.asset, description: b.description },
        (pattern) => app.hasRoute({ method: 'GET', url: pattern }) || app.hasRoute({ method: 'GET', url: routePattern(pattern) }),
      );
      return reply.code(201).send({ data: presentEndpoint(e) });
    },
  );

  app.get(
    '/api/v2/x402/endpoints',
    { schema: { tags: TAGS, summary: "The environment's monetized endpoints and their prices", response: { 200: envelope({ type: 'array', items: endpointSchema }), ...errorResponses } } },
    async (request) => ({ data: (await listEndpoints(caller(request).environment)).map(presentEndpoint) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/x402/endpoints/:id',
    {
      config: { admin: true },
      schema: {
        tags: TAGS,
        summary: 'Stop charging for an endpoint (platform operators only)',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
        response: { 200: envelope(endpointSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentEndpoint(await deactivateEndpoint(caller(request).environment, request.params.id)) }),
  );

  app.get<{ Querystring: { page?: number; per_page?: number } }>(
    '/api/v2/x402/payments',
    {
      schema: {
        tags: TAGS,
        summary: 'Payment history with settlement status',
        description: "Payments made by the caller's wallets or agent keys, newest first; platform operators see every payment of the environment.",
        querystring: { type: 'object', additionalProperties: false, properties: paginationQuery },
        response: { 200: paginatedEnvelope(paymentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const pp = pageParams(request.query);
      const { items, total } = await listPayments({ userId: p.userId, environment: p.environment, operator: p.isAdmin }, { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentPayment), total, pp);
    },
  );

  await app.register(limitRoutes);
  await app.register(facilitatorRoutes);
}
