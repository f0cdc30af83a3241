/**
 * Governance voting: proposals (public reads in the caller's environment, production without
 * credentials; the caller's vote and power when authenticated), votes in both of the spec's forms
 * (the same domain function), the caller's votes, and operators' proposals and cancellations.
 * Each handler is caller → one domain call → presenter.
 */
import type { FastifyInstance } from 'fastify';
import { cancelProposal, castVote, executeProposalByOperator, listMyVotes, listProposals, proposalView, proposeComposition, type CreateProposalRequest } from '../../../domain/governance';
import { pageParams, paginate } from '../../pagination';
import { principalOf } from '../../types';
import { caller, readerEnvironment } from '../../operations/caller';
import { presentMyVote, presentProposal, presentVote } from '../../operations/gcu/voting-presenters';
import { cancelProposalSchema, castVoteSchema, executeProposalSchema, createProposalSchema, getProposalSchema, listProposalsSchema, myVotesSchema, pollVoteSchema } from '../../operations/gcu/voting-schemas';

const PUBLIC_READ = { public: true, optionalAuth: true } as const;
type IdParams = { Params: { id: string } };

export default async function gcuVotingRoutes(app: FastifyInstance) {
  app.get<{ Querystring: { status?: string; page?: number; per_page?: number } }>(
    '/api/v2/gcu/voting/proposals',
    { config: PUBLIC_READ, schema: listProposalsSchema },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listProposals(readerEnvironment(request), request.query.status, pp);
      return paginate(request, items.map(presentProposal), total, pp);
    },
  );

  app.get<IdParams>('/api/v2/gcu/voting/proposals/:id', { config: PUBLIC_READ, schema: getProposalSchema }, async (request) => ({
    data: presentProposal(await proposalView(request.params.id, readerEnvironment(request), request.principal?.userId)),
  }));

  // The spec's two forms of a vote: the same body, the same domain function.
  for (const [path, schema] of [
    ['/api/v2/gcu/voting/proposals/:id/vote', castVoteSchema],
    ['/api/voting/polls/:id/vote', pollVoteSchema],
  ] as const) {
    app.post<IdParams & { Body: { vote: string } }>(path, { schema }, async (request) => ({
      data: presentVote(await castVote({ ...caller(request), proposalId: request.params.id, vote: request.body.vote })),
    }));
  }

  app.get<{ Querystring: { page?: number; per_page?: number } }>('/api/v2/gcu/voting/my-votes', { schema: myVotesSchema }, async (request) => {
    const { userId, environment } = caller(request);
    const pp = pageParams(request.query);
    const { items, total } = await listMyVotes(userId, environment, pp);
    return paginate(request, items.map(presentMyVote), total, pp);
  });

  app.post<{ Body: CreateProposalRequest }>('/api/v2/gcu/voting/proposals', { config: { admin: true }, schema: createProposalSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentProposal(await proposeComposition(principalOf(request), request.body)) }),
  );

  app.post<IdParams & { Body: { reason?: string | null } | null }>(
    '/api/v2/gcu/voting/proposals/:id/cancel',
    { config: { admin: true }, schema: cancelProposalSchema },
    async (request) => ({
      data: presentProposal(await cancelProposal(principalOf(request), request.params.id, request.body?.reason ?? null)),
    }),
  );

  app.post<IdParams>('/api/v2/gcu/voting/proposals/:id/execute', { config: { admin: true }, schema: executeProposalSchema }, async (request) => ({
    data: presentProposal(await executeProposalByOperator(principalOf(request), request.params.id)),
  }));
}
