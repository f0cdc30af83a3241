/** Compliance holds on outgoing payments (domain/regtech/holds): operators list, read and decide them. */
import type { FastifyInstance } from 'fastify';
import { decideHold, getHoldForOperator, listHolds, type ComplianceHold, type HoldStatus } from '../../../domain/regtech/holds';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery, timestamp } from '../../schemas';
import { principalOf } from '../../types';

const TAG = 'Regtech';
const STATUSES = ['open', 'released', 'rejected', 'expired'];

const holdSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    subject_kind: { type: 'string', enum: ['rail_payment', 'ilp_payment', 'bridge'] },
    subject_id: { type: 'string' },
    user_id: { type: 'string' },
    framework: { type: 'string', enum: ['sanctions'] },
    reason_code: { type: 'string', enum: ['SANCTIONS_HIT', 'SANCTIONS_SCREENING_UNAVAILABLE'] },
    party: { type: 'string', description: 'creditor (rail payment), receiver (Interledger) or recipient (bridge)' },
    screened_name: { type: 'string', description: "The party's name, or a bridge recipient's address" },
    matches: { type: 'array', items: { type: 'object', additionalProperties: true } },
    list_version: { type: ['string', 'null'] },
    status: { type: 'string', enum: STATUSES },
    decided_by: { type: ['string', 'null'] },
    decision_note: { type: ['string', 'null'] },
    decided_at: { anyOf: [timestamp, { type: 'null' }] },
    created_at: timestamp,
  },
};

function presentHold(h: ComplianceHold) {
  return {
    id: h.id,
    subject_kind: h.subjectKind,
    subject_id: h.subjectId,
    user_id: h.userId,
    framework: h.framework,
    reason_code: h.reasonCode,
    party: h.party,
    screened_name: h.screenedName,
    matches: (h.screening?.matches ?? []).map((m) => ({ entry_id: m.entryId, name: m.name, matched_name: m.matchedName, sdn_type: m.sdnType, programs: m.programs, score: m.score })),
    list_version: h.screening?.listVersion ?? null,
    status: h.status,
    decided_by: h.decidedBy,
    decision_note: h.decisionNote,
    decided_at: h.decidedAt?.toISOString() ?? null,
    created_at: h.createdAt.toISOString(),
  };
}

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } };
const decisionBody = { type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: 1000 } } };

export default async function holdRoutes(app: FastifyInstance) {
  app.get<{ Querystring: { status?: HoldStatus; page?: number; per_page?: number } }>(
    '/api/v2/regtech/holds',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: 'Outgoing payments held for compliance review (platform operators only)',
        description:
          "A payment whose creditor matches the sanctions list, or a bridge to a listed digital-currency address outside the platform (or one that could not be screened), is held, its amount reserved, until an operator releases or rejects it. Newest first; filter by status.",
        querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: STATUSES }, ...paginationQuery } },
        response: { 200: paginatedEnvelope(holdSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listHolds(principalOf(request), { status: request.query.status, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentHold), total, pp);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/regtech/holds/:id',
    { config: { admin: true }, schema: { tags: [TAG], summary: 'One compliance hold (platform operators only)', params: idParams, response: { 200: envelope(holdSchema), ...errorResponses } } },
    async (request) => ({ data: presentHold(await getHoldForOperator(principalOf(request), request.params.id)) }),
  );

  for (const decision of ['release', 'reject'] as const) {
    app.post<{ Params: { id: string }; Body: { note?: string } }>(
      `/api/v2/regtech/holds/:id/${decision}`,
      {
        config: { admin: true },
        schema: {
          tags: [TAG],
          summary: decision === 'release' ? 'Release a held payment: it goes on to its rail (platform operators only)' : 'Reject a held payment: its reservation is voided and it fails with SANCTIONS_REJECTED (platform operators only)',
          description: 'Only an open hold can be decided (422 HOLD_ALREADY_DECIDED otherwise). The waiting workflow is signalled at once.',
          params: idParams,
          body: decisionBody,
          response: { 200: envelope(holdSchema), ...errorResponses },
        },
      },
      async (request) => ({ data: presentHold(await decideHold(principalOf(request), request.params.id, decision, request.body?.note)) }),
    );
  }
}
