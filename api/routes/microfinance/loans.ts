/**
 * Groups, loan products and group loans (domain/microfinance; docs/microfinance-loans.md).
 * Mounted under /api/v1/microfinance. Operators (config.admin) activate groups, define products and
 * approve, disburse and write off loans; members create groups, apply and repay.
 */
import type { FastifyInstance } from 'fastify';
import { activateGroup, answerInvitation, closeGroup, createGroup, getGroup, listGroups, type MemberInput } from '../../../domain/microfinance/groups';
import { applyForLoan, approveLoan, disburseLoan, listGroupLoans, rejectLoan, repayLoan, writeOffLoan, getLoan } from '../../../domain/microfinance/loans';
import { createLoanProduct, listLoanProducts, type LoanProductInput } from '../../../domain/microfinance/products';
import { getLoanView, loanSchedule } from '../../../domain/microfinance/view';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope, paginationQuery } from '../../schemas';
import { principalOf } from '../../types';
import {
  TAG, acceptBody, applyBody, emptyBody, groupBody, groupSchema, idParams, instalmentSchema, loanDetailSchema, loanSchema, presentGroup, presentInstalment,
  presentLoan, presentLoanView, presentProduct, productBody, productSchema, repaymentBody,
} from '../../operations/microfinance/loans-schemas';

type Page = { page?: number; per_page?: number };
type GroupBody = { name: string; liability_type?: 'joint'; members: Array<string | { user_id: string; account_id?: string; role?: 'leader' | 'member' }> };
type ProductBody = {
  name: string; currency: string; principal_min: string; principal_max: string; annual_interest_rate: string; interest_method: LoanProductInput['interestMethod'];
  term_instalments: number; repayment_frequency: LoanProductInput['repaymentFrequency']; grace_instalments?: number; arrears_tolerance_days?: number; disbursement_fee?: string;
};
const listQuery = { type: 'object', additionalProperties: false, properties: { ...paginationQuery } };

export function loanRoutes(app: FastifyInstance) {
  // ---- Groups
  app.post<{ Body: GroupBody }>(
    '/groups',
    {
      schema: {
        tags: [TAG], summary: 'Create a joint-liability group (the caller is its leader)',
        description: 'The caller leads and joins with an active account of theirs (account_id on their own entry, else their oldest active one). The other members are users of the caller’s tenant and are invited: each becomes liable only by accepting (POST /groups/{id}/accept, choosing their account then), or declines; account_id for someone else is refused. No duplicates; between MICROFINANCE_GROUP_MIN_MEMBERS (3) and MICROFINANCE_GROUP_MAX_MEMBERS (30) members including the leader. A guarantee fund account is opened for the group. The group starts pending; an operator activates it once every invitation is answered and enough members accepted.',
        body: groupBody, response: { 201: envelope(groupSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const members: MemberInput[] = request.body.members.map((m) => (typeof m === 'string' ? { userId: m } : { userId: m.user_id, accountId: m.account_id, role: m.role }));
      const g = await createGroup(principalOf(request), { name: request.body.name, members, liabilityType: request.body.liability_type });
      return reply.code(201).send({ data: presentGroup(g) });
    },
  );
  app.get<{ Querystring: Page }>(
    '/groups',
    { schema: { tags: [TAG], summary: 'Groups the caller belongs to (operators: every group)', querystring: listQuery, response: { 200: paginatedEnvelope(groupSchema), ...errorResponses } } },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listGroups(principalOf(request), { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentGroup), total, pp);
    },
  );
  app.get<{ Params: { id: string } }>(
    '/groups/:id',
    { schema: { tags: [TAG], summary: 'One group (members and operators)', params: idParams, response: { 200: envelope(groupSchema), ...errorResponses } } },
    async (request) => ({ data: presentGroup(await getGroup(principalOf(request), request.params.id)) }),
  );
  app.post<{ Params: { id: string }; Body: { account_id?: string } }>(
    '/groups/:id/accept',
    {
      schema: {
        tags: [TAG],
        summary: 'Accept an invitation to a group: become liable for its members’ loans, with one of your accounts',
        description: 'account_id: one of your active accounts in this environment (default: your oldest). Accepting again is answered alike; after declining, or once the group is no longer pending, 409 MF_INVALID_STATE.',
        params: idParams,
        body: acceptBody,
        response: { 200: envelope(groupSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentGroup(await answerInvitation(principalOf(request), request.params.id, { accept: true, accountId: request.body?.account_id })) }),
  );
  app.post<{ Params: { id: string } }>(
    '/groups/:id/decline',
    {
      schema: { tags: [TAG], summary: 'Decline an invitation to a group (final)', params: idParams, body: emptyBody, response: { 200: envelope(groupSchema), ...errorResponses } },
    },
    async (request) => ({ data: presentGroup(await answerInvitation(principalOf(request), request.params.id, { accept: false })) }),
  );
  app.post<{ Params: { id: string } }>(
    '/groups/:id/activate',
    { config: { admin: true }, schema: { tags: [TAG], summary: 'Activate a pending group (platform operators only)', params: idParams, body: emptyBody, response: { 200: envelope(groupSchema), ...errorResponses } } },
    async (request) => ({ data: presentGroup(await activateGroup(principalOf(request), request.params.id)) }),
  );
  app.post<{ Params: { id: string } }>(
    '/groups/:id/close',
    { config: { admin: true }, schema: { tags: [TAG], summary: 'Close a group with no open loan (platform operators only)', description: 'The guarantee fund goes back to the members in one ledger entry, pro rata to what each paid in (equal shares among accepted members when nothing can be attributed), and the fund account is closed.', params: idParams, body: emptyBody, response: { 200: envelope(groupSchema), ...errorResponses } } },
    async (request) => ({ data: presentGroup(await closeGroup(principalOf(request), request.params.id)) }),
  );

  // ---- Loan products
  app.post<{ Body: ProductBody }>(
    '/loan-products',
    { config: { admin: true }, schema: { tags: [TAG], summary: 'Define a loan product (platform operators only)', body: productBody, response: { 201: envelope(productSchema), ...errorResponses } } },
    async (request, reply) => {
      const b = request.body;
      const product = await createLoanProduct(principalOf(request), {
        name: b.name, currency: b.currency, principalMin: b.principal_min, principalMax: b.principal_max, annualInterestRate: b.annual_interest_rate,
        interestMethod: b.interest_method, termInstalments: b.term_instalments, repaymentFrequency: b.repayment_frequency, graceInstalments: b.grace_instalments,
        arrearsToleranceDays: b.arrears_tolerance_days, disbursementFee: b.disbursement_fee,
      });
      return reply.code(201).send({ data: presentProduct(product) });
    },
  );
  app.get<{ Querystring: Page }>(
    '/loan-products',
    { schema: { tags: [TAG], summary: 'Loan products (customers: the active ones)', querystring: listQuery, response: { 200: paginatedEnvelope(productSchema), ...errorResponses } } },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listLoanProducts(principalOf(request), { limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentProduct), total, pp);
    },
  );

  // ---- Loans
  app.post<{ Params: { id: string }; Body: { product_id: string; principal: string; user_id?: string } }>(
    '/groups/:id/loans',
    {
      schema: {
        tags: [TAG], summary: 'Apply for a group loan (a member for themself, the leader for a member)',
        description: 'The group must be active; the principal within the product’s range. The product’s terms are copied onto the loan.',
        params: idParams, body: applyBody, response: { 201: envelope(loanSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const loan = await applyForLoan(principalOf(request), request.params.id, { productId: request.body.product_id, principal: request.body.principal, userId: request.body.user_id });
      return reply.code(201).send({ data: presentLoan(loan) });
    },
  );
  app.get<{ Params: { id: string } }>(
    '/groups/:id/loans',
    { schema: { tags: [TAG], summary: 'Loans of a group (members and operators)', params: idParams, response: { 200: envelope({ type: 'array', items: loanSchema }), ...errorResponses } } },
    async (request) => ({ data: (await listGroupLoans(principalOf(request), request.params.id)).map(presentLoan) }),
  );
  app.get<{ Params: { id: string } }>(
    '/loans/:id',
    {
      schema: {
        tags: [TAG], summary: 'A loan with its schedule, repayments, totals, days past due and arrears (group members and operators)',
        params: idParams, response: { 200: envelope(loanDetailSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentLoanView(await getLoanView(principalOf(request), request.params.id)) }),
  );
  app.get<{ Params: { id: string } }>(
    '/loans/:id/schedule',
    { schema: { tags: [TAG], summary: 'The repayment schedule of a loan', params: idParams, response: { 200: envelope({ type: 'array', items: instalmentSchema }), ...errorResponses } } },
    async (request) => ({ data: (await loanSchedule(await getLoan(principalOf(request), request.params.id))).map(presentInstalment) }),
  );
  const operatorStep = (path: string, summary: string, fn: typeof approveLoan) =>
    app.post<{ Params: { id: string } }>(
      `/loans/:id/${path}`,
      { config: { admin: true }, schema: { tags: [TAG], summary: `${summary} (platform operators only)`, params: idParams, body: emptyBody, response: { 200: envelope(loanSchema), ...errorResponses } } },
      async (request) => ({ data: presentLoan(await fn(principalOf(request), request.params.id)) }),
    );
  operatorStep('approve', 'Approve a loan application; its workflow starts', approveLoan);
  operatorStep('reject', 'Reject a loan application', rejectLoan);
  operatorStep('disburse', 'Disburse an approved loan into the borrower’s account; the schedule runs from today', (p, id) => disburseLoan(p, id));
  operatorStep('write-off', 'Write off an active loan’s outstanding principal', writeOffLoan);
  app.post<{ Params: { id: string }; Body: { amount: string } }>(
    '/loans/:id/repayments',
    {
      schema: {
        tags: [TAG], summary: 'Repay a loan from the borrower’s account (the borrower)',
        description: 'Allocated to fees, then interest, then principal, oldest instalment first. More than is outstanding is refused (422 MF_REPAYMENT_EXCEEDS_OUTSTANDING). Send an Idempotency-Key: a retry makes one ledger entry.',
        params: idParams, body: repaymentBody, response: { 201: envelope(loanSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { loan } = await repayLoan(principalOf(request), request.params.id, { amount: request.body.amount, idempotencyKey: request.idempotencyKey });
      return reply.code(201).send({ data: presentLoan(loan) });
    },
  );
}
