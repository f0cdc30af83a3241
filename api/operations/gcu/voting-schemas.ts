/** Wire schemas of governance voting (proposals, votes, the poll form, operators' proposals). */
import { envelope, errorResponses, optionalAuthSecurity, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { weightedComponents } from '../baskets/schemas';

/** Public reads: anonymous (production), or a credential that selects the environment and the caller's vote. */
const security = optionalAuthSecurity as Array<Record<string, string[]>>;

export const TAG = 'GCU governance';

const decimal = { type: 'string', description: 'Decimal string' };
const decimalOrNull = { type: ['string', 'null'], description: 'Decimal string, or null' };
const tsOrNull = { type: ['string', 'null'], format: 'date-time' };
const VOTE_VALUES = ['for', 'against', 'abstain'];

const proposalSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    basket_code: { type: 'string' },
    environment: { type: 'string' },
    source: { type: 'string', enum: ['monthly', 'operator'] },
    period: { type: ['string', 'null'], description: "'YYYY-MM' of a monthly poll" },
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['pending', 'active', 'defeated', 'succeeded', 'executed', 'canceled'] },
    proposed_components: {
      type: 'array',
      items: { type: 'object', properties: { asset_code: { type: 'string' }, weight: { type: 'string', description: 'Proposed target weight (fraction)' } } },
    },
    voting_starts_at: timestamp,
    voting_ends_at: timestamp,
    snapshot_at: { ...timestamp, description: 'Voting power is each holder’s basket balance at this instant (= voting_starts_at)' },
    eligible_power: { ...decimalOrNull, description: 'Basket units outstanding at the snapshot (null until voting opens)' },
    quorum: { ...decimal, description: 'Share of the eligible power that must vote' },
    threshold: { ...decimal, description: 'for / (for + against) must exceed this' },
    tallies: {
      type: 'object',
      properties: { for: decimal, against: decimal, abstain: decimal, total: decimal, voters: { type: 'integer' } },
    },
    participation: { ...decimalOrNull, description: 'Votes cast / eligible power (fraction)' },
    approval: { ...decimalOrNull, description: 'for / (for + against) (fraction)' },
    quorum_reached: { type: ['boolean', 'null'] },
    my_vote: {
      type: ['object', 'null'],
      description: 'The caller’s vote (authenticated callers; null when they have not voted or sent no credentials)',
      properties: { vote: { type: 'string', enum: VOTE_VALUES }, power: decimal, cast_at: timestamp, updated_at: timestamp },
    },
    my_power: { ...decimalOrNull, description: 'The caller’s voting power (basket balance at the snapshot); null before voting opens or without credentials' },
    workflow_id: { type: 'string' },
    executed_at: tsOrNull,
    revision_version: { type: ['integer', 'null'], description: 'Basket composition version this proposal created when executed' },
    execution_entry_id: { type: ['string', 'null'], description: 'Ledger entry that rebalanced the reserve' },
    created_by: { type: ['string', 'null'] },
    created_at: timestamp,
    opened_at: tsOrNull,
    closed_at: tsOrNull,
    canceled_at: tsOrNull,
    cancel_reason: { type: ['string', 'null'] },
  },
};

const voteSchema = {
  type: 'object',
  properties: {
    proposal_id: { type: 'string' },
    basket_code: { type: 'string' },
    vote: { type: 'string', enum: VOTE_VALUES },
    previous_vote: { type: ['string', 'null'], enum: [...VOTE_VALUES, null] },
    power: decimal,
    cast_at: timestamp,
    updated_at: timestamp,
    proposal_status: { type: 'string' },
    tallies: proposalSchema.properties.tallies,
  },
};

const myVoteSchema = {
  type: 'object',
  properties: {
    proposal_id: { type: 'string' },
    basket_code: { type: 'string' },
    title: { type: 'string' },
    proposal_status: { type: 'string' },
    vote: { type: 'string', enum: VOTE_VALUES },
    power: decimal,
    cast_at: timestamp,
    updated_at: timestamp,
    voting_ends_at: timestamp,
  },
};

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } };

const voteBody = {
  type: 'object',
  required: ['vote'],
  additionalProperties: false,
  properties: { vote: { type: 'string', enum: VOTE_VALUES, description: 'for, against or abstain' } },
};

const VOTE_DESCRIPTION =
  'Casts the caller’s vote on an active proposal of their environment, weighted by their basket balance at the proposal’s snapshot ' +
  '(voting_starts_at), read from ledger history: units received after the snapshot give no power, units moved away after it keep it. ' +
  'One vote per holder; while the proposal is active the holder may change it (the latest choice counts, the power stays). ' +
  'Refusals write nothing: unknown or another environment’s proposal 404 PROPOSAL_NOT_FOUND; pending, closed or canceled 422 ' +
  'PROPOSAL_NOT_ACTIVE; no units at the snapshot 422 NO_VOTING_POWER; a vote outside for/against/abstain 422 VALIDATION_ERROR.';

export const listProposalsSchema = {
  tags: [TAG],
  summary: 'Governance proposals',
  security,
  description:
    'Proposals to change a basket composition in the caller’s environment (production without credentials): status=active (voting now), ' +
    'upcoming (not open yet) or past (closed or canceled); all without it. Paginated.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { status: { type: 'string', enum: ['active', 'upcoming', 'past'] }, ...paginationQuery },
  },
  response: { 200: paginatedEnvelope(proposalSchema), ...errorResponses },
};

export const getProposalSchema = {
  tags: [TAG],
  summary: 'One proposal, with tallies, quorum and the caller’s vote',
  security,
  params: idParams,
  response: { 200: envelope(proposalSchema), ...errorResponses },
};

export const castVoteSchema = {
  tags: [TAG],
  summary: 'Vote on a proposal',
  description: VOTE_DESCRIPTION,
  params: idParams,
  body: voteBody,
  response: { 200: envelope(voteSchema), ...errorResponses },
};

export const pollVoteSchema = {
  tags: [TAG],
  summary: 'Vote on a poll (the poll form of the proposal vote)',
  description: `The spec’s poll form: {id} is a proposal id and the body is the same {vote}; the same code runs. ${VOTE_DESCRIPTION}`,
  params: idParams,
  body: voteBody,
  response: { 200: envelope(voteSchema), ...errorResponses },
};

export const myVotesSchema = {
  tags: [TAG],
  summary: 'The caller’s votes across proposals, newest first',
  querystring: { type: 'object', additionalProperties: false, properties: { ...paginationQuery } },
  response: { 200: paginatedEnvelope(myVoteSchema), ...errorResponses },
};

export const createProposalSchema = {
  tags: [TAG],
  summary: 'Propose a basket composition (platform operators only)',
  description:
    'Creates a proposal in the operator key’s environment: new target weights for the basket (default GCU); listing an asset the basket ' +
    'lacks adds it, leaving one out removes it. Weights are fractions summing to 1; components are 2 to 20 active non-basket assets ' +
    'with a USD rate. Voting opens at voting_starts_at (default now; not in the past), which is also the snapshot of voting power, and ' +
    'lasts GOVERNANCE_VOTING_DAYS unless voting_ends_at is given (at most 90 days). Quorum and threshold are the settings of now. ' +
    'The proposal’s workflow opens, closes and, if it succeeds, executes it.',
  body: {
    type: 'object',
    required: ['title', 'components'],
    additionalProperties: false,
    properties: {
      basket_code: { type: 'string', minLength: 1, maxLength: 32 },
      title: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: ['string', 'null'], maxLength: 2000 },
      components: weightedComponents,
      voting_starts_at: { type: 'string', format: 'date-time' },
      voting_ends_at: { type: 'string', format: 'date-time' },
    },
  },
  response: { 201: envelope(proposalSchema), ...errorResponses },
};

export const cancelProposalSchema = {
  tags: [TAG],
  summary: 'Cancel a pending or active proposal (platform operators only)',
  description: 'Nothing the proposal proposed happens; its workflow stops. A closed, executed or canceled proposal is 422 PROPOSAL_NOT_CANCELABLE.',
  params: idParams,
  body: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: { reason: { type: ['string', 'null'], maxLength: 500 } },
  },
  response: { 200: envelope(proposalSchema), ...errorResponses },
};

export const executeProposalSchema = {
  tags: [TAG],
  summary: 'Execute a succeeded proposal its workflow could not execute (platform operators only)',
  description:
    'For a succeeded proposal whose workflow failed at execution (e.g. a component had no USD rate then). Executes it once, as the workflow ' +
    'would (IMF method, reserve rebalanced in one entry); calling again returns the same result. Already executed by its workflow: 422 ' +
    'PROPOSAL_ALREADY_EXECUTED; not succeeded: 422 PROPOSAL_NOT_SUCCEEDED.',
  params: idParams,
  response: { 200: envelope(proposalSchema), ...errorResponses },
};
