/** Wire schemas of GET /gcu, /gcu/composition and /gcu/value-history (public reads). */
import { HISTORY_INTERVALS, HISTORY_PERIODS, MAX_HISTORY_BUCKETS } from '../../../domain/baskets/history';
import { envelope, errorResponses, optionalAuthSecurity, timestamp } from '../../schemas';

export const TAG = 'GCU';
/** Anonymous, or a bearer credential that selects the environment (typed as Fastify's schema wants it). */
const security = optionalAuthSecurity as Array<Record<string, string[]>>;

const num = (description: string) => ({ type: 'number', description });
const numOrNull = (description: string) => ({ type: ['number', 'null'], description });
const str = (description: string) => ({ type: 'string', description });
const nullableTs = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const METHOD =
  'Values follow the IMF SDR method: each component’s USD equivalent is its fixed amount per unit × its USD rate, rounded to six ' +
  'decimals; their sum is USD per unit; units per USD is the reciprocal rounded to six significant digits, and the published value ' +
  '(value_usd) is the reciprocal of that, again six significant digits. Weights are derived (equivalent ÷ sum) and drift with rates.';

const ENVIRONMENT =
  'Public: without credentials it describes production; with an API key or access token, the key’s environment (sandbox or production).';

const componentSchema = {
  type: 'object',
  properties: {
    asset_code: { type: 'string' },
    asset_name: { type: 'string' },
    asset_type: str('fiat, crypto or commodity'),
    amount: str('Units of the component in one GCU (fixed until a governance vote changes the composition)'),
    target_weight: str('Weight the amount was set from at the last (re)definition'),
    weight: num('Share of the value at the latest rates: value_contribution_usd ÷ total_value_usd (ten decimals)'),
    current_price_usd: num('Latest USD price of one unit of the component'),
    value_contribution_usd: num('amount × current_price_usd, rounded to six decimals (IMF)'),
    percentage_of_basket: num('weight × 100'),
    '24h_change': numOrNull('Percent change of the component’s recorded USD rate over 24 hours (null without recorded history)'),
    '7d_change': numOrNull('Percent change of the component’s recorded USD rate over 7 days (null without recorded history)'),
    rate_as_of: timestamp,
  },
};

const changeFields = Object.fromEntries(
  (['24h', '7d', '30d'] as const).flatMap((p) => [
    [`${p}_change_usd`, numOrNull(`USD change of one unit over ${p}: latest recorded valuation minus the last one at or before now − ${p}; null without such a valuation`)],
    [`${p}_change_percent`, numOrNull(`The same change in percent of the earlier value (four decimals); null without history`)],
  ]),
);

export const compositionSchema = {
  type: 'object',
  properties: {
    basket_code: { type: 'string' },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    version: { type: 'integer', description: 'Composition version in force (a rebalance increments it)' },
    last_updated: { ...timestamp, description: 'Instant of the newest rate the valuation used' },
    total_value_usd: num('Sum of the value contributions: USD per unit (the IMF “sum” line)'),
    value_usd: str('Published USD value of one unit (six significant digits, the price GCU has elsewhere), decimal string'),
    units_per_usd: str('Units per USD, six significant digits, decimal string'),
    composition: { type: 'array', items: componentSchema },
    rebalancing: {
      type: 'object',
      properties: {
        frequency: str('monthly, quarterly or never'),
        last_rebalanced: nullableTs('When the composition in force took effect'),
        next_rebalance: nullableTs('Start of the next window in which a governance vote can change the composition (first day of the next month or quarter, 00:00 UTC); null for never'),
        automatic: { type: 'boolean', description: 'Always false: the composition changes only by a governance vote' },
      },
    },
    performance: { type: 'object', properties: { ...changeFields, as_of: nullableTs('The latest recorded valuation used') } },
  },
};

export const compositionRouteSchema = {
  tags: [TAG],
  summary: 'GCU composition at the latest rates',
  description:
    `Each component of GCU with its fixed amount valued at the latest USD rates. ${METHOD} Changes and performance are computed from ` +
    `the hourly recorded valuations only. The view is cached for at most one second. ${ENVIRONMENT}`,
  security,
  response: { 200: envelope(compositionSchema), ...errorResponses },
};

export const infoSchema = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    precision: { type: 'integer', description: 'Decimals a GCU amount may carry' },
    version: { type: 'integer' },
    value_usd: str('USD value of one GCU at the latest rates (IMF method, six significant digits)'),
    units_per_usd: str('GCU per USD, six significant digits'),
    outstanding_units: str('GCU held by accounts in this environment'),
    component_count: { type: 'integer' },
    rebalance_frequency: { type: 'string' },
    last_valuation_at: nullableTs('The latest hourly recorded valuation (value history), null before the first'),
    last_updated: { ...timestamp, description: 'Instant of the newest rate value_usd used' },
  },
};

export const infoRouteSchema = {
  tags: [TAG],
  summary: 'GCU basket information',
  description:
    `The primary basket: its value at the latest rates, supply outstanding in the caller’s environment and composition version; ` +
    `links point to the composition, the value history and the governance proposals. ${METHOD} ${ENVIRONMENT}`,
  security,
  response: { 200: envelope(infoSchema), ...errorResponses },
};

const pointSchema = {
  type: 'object',
  properties: {
    timestamp: { ...timestamp, description: 'Bucket start (= period_start)' },
    period_start: timestamp,
    period_end: { ...timestamp, description: 'Exclusive end of the bucket' },
    open: str('First recorded value in the bucket'),
    high: str('Highest recorded value'),
    low: str('Lowest recorded value'),
    close: str('Last recorded value in the bucket'),
    value: str('= close'),
    samples: { type: 'integer', description: 'Recorded valuations in the bucket' },
  },
};

export const historyQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    period: { type: 'string', enum: [...HISTORY_PERIODS], default: '30d', description: 'How far back: 24h, 7d, 30d, 90d, 1y (365 days) or all' },
    interval: { type: 'string', enum: [...HISTORY_INTERVALS], default: 'daily', description: 'Bucket size: UTC hour, day, ISO week (from Monday) or calendar month' },
  },
};

export const historyRouteSchema = {
  tags: [TAG],
  summary: 'GCU value history',
  description:
    'USD value of one GCU over the period, from the valuations the hourly schedule recorded (never values computed at request time). ' +
    'Valuations in (now − period, now] are grouped into UTC buckets of the interval; each bucket has open (first), high, low and close ' +
    `(last) recorded values and value = close, as decimal strings; buckets without a valuation are left out. More than ${MAX_HISTORY_BUCKETS} ` +
    `buckets (e.g. hourly over years of "all") is 422 HISTORY_TOO_MANY_BUCKETS. ${METHOD} ${ENVIRONMENT}`,
  security,
  querystring: historyQuery,
  response: {
    200: envelope(
      { type: 'array', items: pointSchema },
      {
        meta: {
          type: 'object',
          additionalProperties: true,
          properties: {
            basket_code: { type: 'string' },
            environment: { type: 'string' },
            period: { type: 'string' },
            interval: { type: 'string' },
            aggregation: { type: 'string', enum: ['ohlc'] },
            from: nullableTs('Exclusive lower bound (now − period; for all, the first valuation)'),
            to: timestamp,
            buckets: { type: 'integer' },
          },
        },
      },
    ),
    ...errorResponses,
  },
};
