/** Wire schemas of the basket endpoints (definitions, compose and decompose). */
import { decimalString, envelope, errorResponses, optionalAuthSecurity, timestamp } from '../../schemas';

export const TAG = 'Baskets';

const componentSchema = {
  type: 'object',
  properties: {
    asset_code: { type: 'string' },
    amount: { type: 'string', description: 'Units of the component in one basket unit (fixed until a rebalance)' },
    target_weight: { type: 'string', description: 'Weight the amount was set from at the last (re)definition' },
    current_weight: { type: ['string', 'null'], description: 'Share of the value at the latest rates (derived; drifts with rates)' },
    usd_equivalent: { type: ['string', 'null'], description: 'amount × latest USD rate, six decimals (IMF method)' },
  },
};

export const basketSchema = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    type: { type: 'string', enum: ['basket'] },
    is_primary: { type: 'boolean' },
    precision: { type: 'integer' },
    environment: { type: 'string' },
    version: { type: 'integer' },
    rebalance_frequency: { type: 'string' },
    last_rebalanced_at: { type: ['string', 'null'] },
    outstanding_units: { type: 'string', description: 'Basket units held by accounts in this environment' },
    value_usd: { type: ['string', 'null'], description: 'USD value of one unit at the latest rates, six significant digits (null when a component has no rate)' },
    components: { type: 'array', items: componentSchema },
    created_at: timestamp,
  },
};

export const operationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['compose', 'decompose'] },
    account_uuid: { type: 'string' },
    basket_code: { type: 'string' },
    amount: { type: 'string' },
    version: { type: 'integer' },
    components: { type: 'array', items: { type: 'object', properties: { asset_code: { type: 'string' }, amount: { type: 'string' } } } },
    entry_id: { type: 'string' },
    created_at: timestamp,
  },
};

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 32 } },
};

const uuidParams = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: { type: 'string', minLength: 1, maxLength: 100 } },
};

export const listSchema = {
  tags: [TAG],
  summary: 'List baskets',
  description: 'Every basket with its composition in the caller’s environment (production without credentials) and its value at the latest rates.',
  security: optionalAuthSecurity,
  response: { 200: envelope({ type: 'array', items: basketSchema }), ...errorResponses },
};

export const getSchema = {
  tags: [TAG],
  summary: 'One basket',
  description: 'A basket’s composition in the caller’s environment (production without credentials), its value and derived weights at the latest rates. Unknown code: 404 BASKET_NOT_FOUND.',
  security: optionalAuthSecurity,
  params: codeParams,
  response: { 200: envelope(basketSchema), ...errorResponses },
};

/** Components by target weight (weights sum to 1): a basket's definition and a governance proposal. */
export const weightedComponents = {
  type: 'array',
  minItems: 2,
  maxItems: 20,
  items: {
    type: 'object',
    required: ['asset_code', 'weight'],
    additionalProperties: false,
    properties: {
      asset_code: { type: 'string', minLength: 1, maxLength: 12 },
      weight: { type: 'string', pattern: '^(0(\\.[0-9]{1,10})?|1(\\.0{1,10})?)$', description: 'Target weight, a fraction such as "0.25"; weights sum to 1' },
    },
  },
};

export const createBody = {
  type: 'object',
  required: ['code', 'name', 'components'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', minLength: 3, maxLength: 12 },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: ['string', 'null'], maxLength: 500 },
    precision: { type: 'integer', minimum: 0, maximum: 8, default: 4 },
    rebalance_frequency: { type: 'string', enum: ['monthly', 'quarterly', 'never'], default: 'monthly' },
    initial_value_usd: { ...decimalString, description: 'USD value of one unit at creation (default "1")' },
    components: weightedComponents,
  },
};

export const createSchema = {
  tags: [TAG],
  summary: 'Define a basket (platform operators only)',
  description:
    'Creates the basket asset and its composition in both environments. Amounts per unit are computed from the target weights at the ' +
    'latest rates so that one unit is worth initial_value_usd, rounded to five significant digits (as the IMF rounds the SDR amounts). ' +
    'Components must be active, non-basket assets with a USD rate; the code must be new (422 ASSET_EXISTS).',
  body: createBody,
  response: { 201: envelope(basketSchema), ...errorResponses },
};

const operationBody = {
  type: 'object',
  required: ['basket_code', 'amount'],
  additionalProperties: false,
  properties: {
    basket_code: { type: 'string', minLength: 1, maxLength: 32 },
    amount: { ...decimalString, description: 'Basket units, at most the basket asset’s precision (GCU: 4 decimals)' },
  },
};

export const composeSchema = {
  tags: [TAG],
  summary: 'Compose basket units from component assets',
  description:
    'Takes each component from the account and credits basket units, in one balanced ledger entry through the basket reserve. ' +
    'Per component the account pays the change in ceil(outstanding units × amount) at the component’s precision, so the reserve ' +
    'always holds exactly that figure and a compose and decompose of the same units cancel out (docs/gcu.md). A component the ' +
    'account lacks is 422 INSUFFICIENT_FUNDS naming the asset (details.asset_code); nothing moves. Idempotency-Key is honoured.',
  params: uuidParams,
  body: operationBody,
  response: { 201: envelope(operationSchema), ...errorResponses },
};

export const decomposeSchema = {
  tags: [TAG],
  summary: 'Decompose basket units back into component assets',
  description:
    'Debits basket units and pays out each component from the reserve (the change in ceil(outstanding units × amount)), in one ' +
    'balanced ledger entry. More units than the account holds is 422 INSUFFICIENT_FUNDS; nothing moves.',
  params: uuidParams,
  body: operationBody,
  response: { 201: envelope(operationSchema), ...errorResponses },
};
