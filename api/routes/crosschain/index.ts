import type { FastifyInstance } from 'fastify';
import { chainBalances } from '../../../domain/chains/books';
import { custodyAddress } from '../../../domain/chains/custody';
import { getChain, tokenForAsset } from '../../../domain/chains/registry';
import {
  BRIDGE_PROTOCOLS,
  bridgeHistory,
  compareProtocols,
  createBridgeQuote,
  getBridgeTransfer,
  inFlightBridges,
  initiateBridgeTransfer,
  resolveRoute,
  toPublicBridgeTransfer,
  type BridgeQuote,
  type BridgeTransfer,
} from '../../../domain/crosschain';
import { startBridgeWorkflow } from '../../../domain/crosschain/workflow';
import { getPool } from '../../../domain/db/pool';
import { DecimalMoney } from '../../../domain/money/amount';
import { latestRates } from '../../../domain/rates';
import { ApiError, notFound } from '../../errors';
import { decimalString, envelope, errorResponses, timestamp } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Cross-chain';
type Dec = InstanceType<typeof DecimalMoney>;
const free = { type: 'object', additionalProperties: true };
const nullableStr = { type: ['string', 'null'] };
const chainField = { type: 'string', minLength: 1, maxLength: 64 };
const tokenField = { type: 'string', minLength: 1, maxLength: 64 };
const protocolField = { type: 'string', enum: [...BRIDGE_PROTOCOLS] };
const addressField = { type: 'string', minLength: 1, maxLength: 128 };
const idField = { type: 'string', minLength: 1, maxLength: 64 };

const alternativeSchema = {
  type: 'object',
  properties: {
    bridge_protocol: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    fee_amount: { type: 'string' },
    estimated_duration_seconds: { type: 'integer' },
  },
};

const quoteSchema = {
  type: 'object',
  properties: {
    quote_id: { type: 'string' },
    bridge_protocol: { type: 'string' },
    source_chain: { type: 'string' },
    destination_chain: { type: 'string' },
    token: { type: 'string' },
    destination_token: { type: 'string' },
    asset_code: { type: 'string' },
    input_amount: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    fee_amount: { type: 'string' },
    fee_currency: { type: 'string' },
    fee_breakdown: free,
    exchange_rate: { type: 'string' },
    estimated_duration_seconds: { type: 'integer' },
    quote_expires_at: timestamp,
    alternative_quotes: { type: 'array', items: alternativeSchema },
    created_at: timestamp,
  },
};

const transferSchema = {
  type: 'object',
  properties: {
    bridge_tx_id: { type: 'string' },
    quote_id: { type: 'string' },
    status: { type: 'string' },
    source_chain: { type: 'string' },
    destination_chain: { type: 'string' },
    token: { type: 'string' },
    bridge_protocol: { type: 'string' },
    source_tx_hash: nullableStr,
    destination_tx_hash: nullableStr,
    sender_address: { type: 'string' },
    recipient_address: { type: 'string' },
    amount: { type: 'string' },
    created_at: timestamp,
    estimated_completion_at: timestamp,
    account_id: { type: 'string' },
    asset_code: { type: 'string' },
    destination_token: { type: 'string' },
    fee_amount: { type: 'string' },
    fee_currency: { type: 'string' },
    estimated_receive_amount: { type: 'string' },
    min_receive_amount: { type: 'string' },
    slippage_tolerance: { type: 'string' },
    deadline_at: timestamp,
    workflow_id: { type: 'string' },
    source_tx_kind: nullableStr,
    destination_tx_kind: nullableStr,
    attestation: { type: ['object', 'null'], additionalProperties: true },
    failure: { type: ['object', 'null'], properties: { code: { type: 'string' }, reason: { type: 'string' } } },
    compensation: nullableStr,
    recovery_required: { type: 'boolean' },
    completed_at: nullableStr,
    failed_at: nullableStr,
    history: { type: 'array', items: { type: 'object', properties: { status: { type: 'string' }, detail: free, occurred_at: timestamp } } },
    quote: quoteSchema,
  },
};

function presentQuote(q: BridgeQuote) {
  return {
    quote_id: q.id,
    bridge_protocol: q.protocol,
    source_chain: q.sourceChain,
    destination_chain: q.destinationChain,
    token: q.token,
    destination_token: q.destinationToken,
    asset_code: q.assetCode,
    input_amount: q.amount,
    estimated_receive_amount: q.receiveAmount,
    fee_amount: q.feeAmount,
    fee_currency: q.token,
    fee_breakdown: q.feeBreakdown,
    exchange_rate: q.exchangeRate,
    estimated_duration_seconds: q.estimatedDurationSeconds,
    quote_expires_at: q.expiresAt.toISOString(),
    alternative_quotes: q.alternatives,
    created_at: q.createdAt.toISOString(),
  };
}

async function presentWithHistory(t: BridgeTransfer) {
  const history = await bridgeHistory(t.id);
  return { ...toPublicBridgeTransfer(t), history: history.map((h) => ({ status: h.status, detail: h.detail, occurred_at: h.occurredAt.toISOString() })) };
}

async function start(t: BridgeTransfer) {
  await startBridgeWorkflow(t).catch(() => {
    throw new ApiError(503, 'WORKFLOW_UNAVAILABLE', 'The bridge transfer could not be started; nothing was moved. Retry with a new quote.');
  });
}

const initiateDescription =
  'Spends the quote once and starts the bridge workflow; the answer is the transfer as pending with null hashes. account_id (optional, a platform ' +
  'extension) names the account whose source-chain book pays; without it the oldest of your accounts holding the amount there pays. ' +
  'sender_address must be valid on the source chain and recipient_address on the destination chain (EIP-55 checksummed EVM, base58 Solana).';

export default async function crosschainRoutes(app: FastifyInstance) {
  app.post<{ Body: { source_chain: string; destination_chain: string; token: string; amount: string; preferred_bridge?: string } }>(
    '/api/v1/crosschain/bridge/quote',
    {
      schema: {
        tags: [TAG],
        summary: 'Quote a bridge transfer',
        description:
          'Prices the route with wormhole, layerzero and axelar. The quote is preferred_bridge when given (422 UNSUPPORTED_ROUTE when it does not serve ' +
          'the route), else the offer that delivers most (then the fastest); the others are alternative_quotes. Fees are in the token; the quote holds ' +
          'until quote_expires_at (BRIDGE_QUOTE_TTL_SECONDS, default 120 s).',
        body: {
          type: 'object',
          required: ['source_chain', 'destination_chain', 'token', 'amount'],
          additionalProperties: false,
          properties: { source_chain: chainField, destination_chain: chainField, token: tokenField, amount: decimalString, preferred_bridge: protocolField },
        },
        response: { 201: envelope(quoteSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const q = await createBridgeQuote({
        userId: pr.userId,
        environment: pr.environment,
        sourceChain: b.source_chain,
        destinationChain: b.destination_chain,
        token: b.token,
        amount: b.amount,
        protocol: b.preferred_bridge,
        protocolPointer: '/preferred_bridge',
        now: new Date(),
      });
      return reply.code(201).send({ data: presentQuote(q) });
    },
  );

  app.post<{ Body: { quote_id: string; sender_address: string; recipient_address: string; slippage_tolerance?: number; deadline_minutes?: number; account_id?: string } }>(
    '/api/v1/crosschain/bridge/initiate',
    {
      schema: {
        tags: [TAG],
        summary: 'Initiate a quoted bridge transfer',
        description: initiateDescription + ' A used, expired or unknown (or another user\'s) quote is 422.',
        body: {
          type: 'object',
          required: ['quote_id', 'sender_address', 'recipient_address'],
          additionalProperties: false,
          properties: {
            quote_id: idField,
            sender_address: addressField,
            recipient_address: addressField,
            slippage_tolerance: { type: 'number', minimum: 0, maximum: 0.5, default: 0.005 },
            deadline_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
            account_id: idField,
          },
        },
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const t = await initiateBridgeTransfer({
        userId: pr.userId,
        environment: pr.environment,
        quoteId: b.quote_id,
        accountId: b.account_id,
        senderAddress: b.sender_address,
        recipientAddress: b.recipient_address,
        slippageTolerance: b.slippage_tolerance,
        deadlineMinutes: b.deadline_minutes,
        now: new Date(),
      });
      await start(t);
      return reply.code(201).send({ data: toPublicBridgeTransfer(t) });
    },
  );

  for (const prefix of ['/api/v1', '/api/v2']) {
    app.get<{ Params: { id: string } }>(
      `${prefix}/crosschain/bridge/:id`,
      {
        schema: {
          tags: [TAG],
          summary: 'A bridge transfer: status, hashes, attestation, failure and history',
          params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
          response: { 200: envelope(transferSchema), ...errorResponses },
        },
      },
      async (request) => {
        const pr = principalOf(request);
        const t = await getBridgeTransfer(request.params.id, { userId: pr.userId, environment: pr.environment });
        if (!t) throw notFound('Bridge transfer');
        return { data: await presentWithHistory(t) };
      },
    );
  }

  app.post<{
    Body: {
      source_chain: string;
      destination_chain: string;
      token: string;
      amount: string;
      protocol: string;
      account_id?: string;
      sender_address?: string;
      recipient_address?: string;
      slippage_bps?: number;
      deadline_minutes?: number;
    };
  }>(
    '/api/v2/crosschain/bridge',
    {
      schema: {
        tags: [TAG],
        summary: 'Bridge a token (quote and initiate in one call)',
        description:
          'Quotes with the named protocol and initiates at once (same checks as the v1 quote and initiate). Addresses default to the paying account\'s ' +
          'custodial addresses on each chain. ' +
          initiateDescription,
        body: {
          type: 'object',
          required: ['source_chain', 'destination_chain', 'token', 'amount', 'protocol'],
          additionalProperties: false,
          properties: {
            source_chain: chainField,
            destination_chain: chainField,
            token: tokenField,
            amount: decimalString,
            protocol: protocolField,
            account_id: idField,
            sender_address: addressField,
            recipient_address: addressField,
            slippage_bps: { type: 'integer', minimum: 0, maximum: 5000, default: 50 },
            deadline_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
          },
        },
        response: { 201: envelope(transferSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const pr = principalOf(request);
      const b = request.body;
      const now = new Date();
      const q = await createBridgeQuote({
        userId: pr.userId,
        environment: pr.environment,
        sourceChain: b.source_chain,
        destinationChain: b.destination_chain,
        token: b.token,
        amount: b.amount,
        protocol: b.protocol,
        protocolPointer: '/protocol',
        now,
      });
      const t = await initiateBridgeTransfer({
        userId: pr.userId,
        environment: pr.environment,
        quoteId: q.id,
        accountId: b.account_id,
        senderAddress: b.sender_address,
        recipientAddress: b.recipient_address,
        slippageTolerance: (b.slippage_bps ?? 50) / 10_000,
        deadlineMinutes: b.deadline_minutes,
        now,
      });
      await start(t);
      return reply.code(201).send({ data: { ...toPublicBridgeTransfer(t), quote: presentQuote(q) } });
    },
  );

  app.get<{ Querystring: { from: string; to: string; token: string; amount: string } }>(
    '/api/v2/crosschain/bridge/fees',
    {
      schema: {
        tags: [TAG],
        summary: 'Fees and estimated times per protocol for a route and amount',
        querystring: {
          type: 'object',
          required: ['from', 'to', 'token', 'amount'],
          additionalProperties: false,
          properties: { from: chainField, to: chainField, token: tokenField, amount: decimalString },
        },
        response: {
          200: envelope({
            type: 'object',
            properties: {
              source_chain: { type: 'string' },
              destination_chain: { type: 'string' },
              token: { type: 'string' },
              asset_code: { type: 'string' },
              amount: { type: 'string' },
              recommended: nullableStr,
              protocols: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    protocol: { type: 'string' },
                    supported: { type: 'boolean' },
                    reason: nullableStr,
                    fee_amount: nullableStr,
                    fee_currency: { type: 'string' },
                    fee_breakdown: { type: ['object', 'null'], additionalProperties: true },
                    estimated_receive_amount: nullableStr,
                    estimated_duration_seconds: { type: ['integer', 'null'] },
                    min_amount: nullableStr,
                    max_amount: nullableStr,
                    source_mechanism: nullableStr,
                    destination_mechanism: nullableStr,
                    attestation: nullableStr,
                  },
                },
              },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const ptr = { source: '/from', destination: '/to', token: '/token' };
      const route = await resolveRoute(q.from, q.to, q.token, ptr);
      const { amount, rows } = await compareProtocols(route, q.amount);
      return {
        data: {
          source_chain: route.source.id,
          destination_chain: route.destination.id,
          token: route.sourceToken.symbol,
          asset_code: route.assetCode,
          amount,
          recommended: rows.find((r) => r.supported)?.protocol ?? null,
          protocols: rows.map((r) => ({
            protocol: r.protocol,
            supported: r.supported,
            reason: r.reason,
            fee_amount: r.offer?.feeAmount ?? null,
            fee_currency: route.sourceToken.symbol,
            fee_breakdown: r.offer?.feeBreakdown ?? null,
            estimated_receive_amount: r.offer?.receiveAmount ?? null,
            estimated_duration_seconds: r.offer?.estimatedDurationSeconds ?? null,
            min_amount: r.offer?.minAmount ?? null,
            max_amount: r.offer?.maxAmount ?? null,
            source_mechanism: r.offer?.sourceMechanism ?? null,
            destination_mechanism: r.offer?.destinationMechanism ?? null,
            attestation: r.offer?.attestation ?? null,
          })),
        },
      };
    },
  );

  app.get<{ Querystring: { account_id?: string } }>(
    '/api/v2/crosschain/portfolio',
    {
      schema: {
        tags: [TAG],
        summary: 'Holdings per chain from the ledger (every chain book of your accounts), with USD values and bridges in flight',
        querystring: { type: 'object', additionalProperties: false, properties: { account_id: idField } },
        response: {
          200: envelope({
            type: 'object',
            properties: {
              total_usd: { type: 'string' },
              chains: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    chain: { type: 'string' },
                    name: { type: 'string' },
                    caip2: { type: 'string' },
                    total_usd: { type: 'string' },
                    holdings: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          account_id: { type: 'string' },
                          asset_code: { type: 'string' },
                          token: { type: 'string' },
                          token_address: nullableStr,
                          address: { type: 'string' },
                          available_balance: { type: 'string' },
                          reserved_balance: { type: 'string' },
                          total_balance: { type: 'string' },
                          usd_value: { type: 'string' },
                        },
                      },
                    },
                  },
                },
              },
              assets: {
                type: 'array',
                items: { type: 'object', properties: { asset_code: { type: 'string' }, total_balance: { type: 'string' }, usd_value: { type: 'string' }, chains: { type: 'array', items: { type: 'string' } } } },
              },
              in_flight: { type: 'array', items: transferSchema },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const pr = principalOf(request);
      const { rows: accounts } = await getPool().query<{ id: string }>(
        'SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id',
        [pr.userId, pr.environment, request.query.account_id ?? null],
      );
      if (request.query.account_id && accounts.length === 0) throw notFound('Account');
      const rates = await latestRates();
      const usd = (asset: string, amount: string) => new DecimalMoney(amount).times(rates.get(asset) ?? 0);
      const chains = new Map<string, { chain: string; name: string; caip2: string; total: Dec; holdings: Array<Record<string, string | null>> }>();
      const assets = new Map<string, { total: Dec; usd: Dec; chains: Set<string>; places: number }>();
      for (const a of accounts) {
        for (const b of await chainBalances(a.id)) {
          const chain = b.chain!;
          const info = getChain(chain);
          const tok = tokenForAsset(chain, b.assetCode);
          const value = usd(b.assetCode, b.totalBalance);
          const entry = chains.get(chain) ?? { chain, name: info.name, caip2: info.caip2, total: new DecimalMoney(0), holdings: [] };
          entry.total = entry.total.plus(value);
          entry.holdings.push({
            account_id: a.id,
            asset_code: b.assetCode,
            token: tok?.symbol ?? b.assetCode,
            token_address: tok?.address ?? null,
            address: custodyAddress(a.id, chain),
            available_balance: b.availableBalance,
            reserved_balance: b.reservedBalance,
            total_balance: b.totalBalance,
            usd_value: value.toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2),
          });
          chains.set(chain, entry);
          const agg = assets.get(b.assetCode) ?? { total: new DecimalMoney(0), usd: new DecimalMoney(0), chains: new Set<string>(), places: b.totalBalance.split('.')[1]?.length ?? 0 };
          agg.total = agg.total.plus(b.totalBalance);
          agg.usd = agg.usd.plus(value);
          agg.chains.add(chain);
          assets.set(b.assetCode, agg);
        }
      }
      const inFlight = (await inFlightBridges(pr.userId, pr.environment)).filter((t) => accounts.some((a) => a.id === t.accountId));
      const total = [...chains.values()].reduce((s, c) => s.plus(c.total), new DecimalMoney(0));
      return {
        data: {
          total_usd: total.toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2),
          chains: [...chains.values()].map((c) => ({ chain: c.chain, name: c.name, caip2: c.caip2, total_usd: c.total.toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2), holdings: c.holdings })),
          assets: [...assets.entries()].map(([code, a]) => ({
            asset_code: code,
            total_balance: a.total.toFixed(a.places),
            usd_value: a.usd.toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2),
            chains: [...a.chains],
          })),
          in_flight: inFlight.map(toPublicBridgeTransfer),
        },
      };
    },
  );
}
