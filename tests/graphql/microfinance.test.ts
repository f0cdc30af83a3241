import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { available, get, MF, openAccount, post } from '../microfinance/mf-helpers';
import { gql, gqlOk, gqlRefused } from './helpers';

/**
 * Microfinance over GraphQL (api/graphql/areas/microfinance*.ts): groups, products, group loans and
 * repayments, provisioning and teller cash through the same domain calls as the REST routes, with
 * the REST answers, codes and rights.
 */
let t: TestApp;
let op: TestUser;
let leader: TestUser;
let borrower: TestUser;
let member: TestUser;
let outsider: TestUser;
const acct: Record<string, string> = {};
let productId: string;
let groupId: string;
let loanId: string;

const GROUP = 'id name liabilityType status guaranteeAccountId createdBy members { userId accountId role status joinedAt respondedAt } createdAt activatedAt closedAt';
const LOAN =
  'id groupId userId accountId productId currency principal annualInterestRate interestMethod termInstalments repaymentFrequency graceInstalments arrearsToleranceDays status disbursementEntryId writeOffEntryId disbursedOn approvedBy createdAt approvedAt disbursedAt closedAt writtenOffAt';
const INSTALMENT = 'number dueDate principalDue interestDue feeDue totalDue principalPaid interestPaid feePaid totalPaid paidOn';
const SESSION = 'id officeId tellerUserId status tills { currency ledgerAccountId allocated balance expected counted variance } openEntryId closeEntryId varianceEntryId varianceApprovedBy openedAt countedAt closedAt';
const TXN = 'id sessionId officeId tellerUserId type accountId currency amount toCurrency toAmount midRate spread appliedRate rateAsOf entryId createdAt';

/** A REST snake_case object as GraphQL shows it (camelCase keys, recursively). */
const camel = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(camel) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camel(x)])) : v;
const restError = async (r: Promise<{ statusCode: number; json(): any }>) => {
  const res = await r;
  return { status: res.statusCode, code: res.json().errors?.[0]?.code };
};

beforeAll(async () => {
  t = await createTestApp();
  op = await createTestUser({ admin: true });
  leader = t.user;
  borrower = await createTestUser();
  member = await createTestUser();
  outsider = await createTestUser();
  acct.leader = await openAccount(t, leader, '10.00');
  acct.borrower = await openAccount(t, borrower, '100.00');
  acct.member = await openAccount(t, member);
  acct.outsider = await openAccount(t, outsider);
  const p = await post(t, op.headers, '/loan-products', {
    name: 'Monthly 6', currency: 'USD', principal_min: '100.00', principal_max: '2000.00', annual_interest_rate: '0.12',
    interest_method: 'flat', term_instalments: 6, repayment_frequency: 'monthly', disbursement_fee: '5.00',
  });
  expect(p.statusCode, p.body).toBe(201);
  productId = p.json().data.id;
}, 120_000);
afterAll(async () => t?.close());

describe('groups and loan products over GraphQL', () => {
  it('creates a group through the domain: the REST answer is the same group; operators activate it', async () => {
    const created = (
      await gqlOk(t, `mutation ($input: CreateMicrofinanceGroupInput!) { createMicrofinanceGroup(input: $input) { ${GROUP} } }`, {
        input: { name: 'Umoja', members: [{ userId: borrower.userId }, { userId: member.userId }] },
      })
    ).createMicrofinanceGroup;
    groupId = created.id;
    expect(created).toMatchObject({ status: 'pending', liabilityType: 'joint', createdBy: leader.userId });
    expect(created.members.map((m: { userId: string; role: string; status: string }) => [m.userId, m.role, m.status])).toEqual([
      [leader.userId, 'leader', 'accepted'],
      [borrower.userId, 'member', 'invited'],
      [member.userId, 'member', 'invited'],
    ]);
    // The invited answer: the borrower over GraphQL (choosing the account), the member over REST.
    const accepted = (await gqlOk(t, `mutation ($id: ID!, $a: ID) { acceptMicrofinanceGroupInvitation(id: $id, accountId: $a) { ${GROUP} } }`, { id: groupId, a: acct.borrower }, borrower.headers))
      .acceptMicrofinanceGroupInvitation;
    expect(accepted.members.find((m: { userId: string }) => m.userId === borrower.userId)).toMatchObject({ status: 'accepted', accountId: acct.borrower });
    expect((await post(t, member.headers, `/groups/${groupId}/accept`)).statusCode).toBe(200);

    const viaRest = (await get(t, member.headers, `/groups/${groupId}`)).json().data;
    const viaGql = (await gqlOk(t, `query ($id: ID!) { microfinanceGroup(id: $id) { ${GROUP} } }`, { id: groupId }, member.headers)).microfinanceGroup;
    expect(viaGql).toEqual(camel(viaRest));
    const listed = (await gqlOk(t, `{ microfinanceGroups { data { id } paginatorInfo { total } } }`, undefined, member.headers)).microfinanceGroups;
    expect(listed.data.map((g: { id: string }) => g.id)).toEqual((await get(t, member.headers, '/groups')).json().data.map((g: { id: string }) => g.id));

    // Activating is for operators, as on REST.
    const restRefusal = await restError(post(t, leader.headers, `/groups/${groupId}/activate`));
    await gqlRefused(t, `mutation ($id: ID!) { activateMicrofinanceGroup(id: $id) { status } }`, restRefusal.code, restRefusal.status, { id: groupId });
    expect((await gqlOk(t, `mutation ($id: ID!) { activateMicrofinanceGroup(id: $id) { status activatedAt } }`, { id: groupId }, op.headers)).activateMicrofinanceGroup.status).toBe('active');
    expect((await get(t, leader.headers, `/groups/${groupId}`)).json().data.status).toBe('active');
  });

  it("another user's group is the REST not-found; a read-only key cannot create one; the REST schema refuses a bad body", async () => {
    const rest = await restError(get(t, outsider.headers, `/groups/${groupId}`));
    expect(rest).toEqual({ status: 404, code: 'MF_GROUP_NOT_FOUND' });
    await gqlRefused(t, `query ($id: ID!) { microfinanceGroup(id: $id) { id } }`, 'MF_GROUP_NOT_FOUND', 404, { id: groupId }, outsider.headers);
    const outsiderList = (await gqlOk(t, `{ microfinanceGroups { data { id } } }`, undefined, outsider.headers)).microfinanceGroups.data;
    expect(outsiderList.map((g: { id: string }) => g.id)).not.toContain(groupId);

    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, `mutation { createMicrofinanceGroup(input: { name: "x", members: [{ userId: "u" }] }) { id } }`, 'INSUFFICIENT_PERMISSIONS', 403, undefined, readOnly.headers);

    const bad = await gqlRefused(t, `mutation { createMicrofinanceGroup(input: { name: "x", liabilityType: "several", members: [{ userId: "u" }] }) { id } }`, 'VALIDATION_ERROR', 422);
    expect(bad.errors?.[0].extensions.pointer).toBe('/liability_type');
    // A domain rule: too few members (MF_GROUP_SIZE, as on REST).
    const restSize = await restError(post(t, leader.headers, '/groups', { name: 'Two', members: [member.userId] }));
    await gqlRefused(t, `mutation ($u: ID!) { createMicrofinanceGroup(input: { name: "Two", members: [{ userId: $u }] }) { id } }`, restSize.code, restSize.status, { u: member.userId });
    expect(restSize.code).toBe('MF_GROUP_SIZE');
  });

  it('operators define products with the REST rules; customers list the same products as REST', async () => {
    const P = 'id name currency principalMin principalMax annualInterestRate interestMethod termInstalments repaymentFrequency graceInstalments arrearsToleranceDays disbursementFee status createdAt';
    const input = { name: 'Weekly 10', currency: 'USD', principalMin: '50', principalMax: '500', annualInterestRate: '0.2', interestMethod: 'declining_balance', termInstalments: 10, repaymentFrequency: 'weekly' };
    const mutation = `mutation ($input: LoanProductInput!) { createLoanProduct(input: $input) { ${P} } }`;
    await gqlRefused(t, mutation, 'ADMIN_REQUIRED', 403, { input });
    const created = (await gqlOk(t, mutation, { input }, op.headers)).createLoanProduct;
    expect(created).toMatchObject({ principalMin: '50.00', principalMax: '500.00', status: 'active', disbursementFee: '0.00' });
    const bad = await gqlRefused(t, mutation, 'VALIDATION_ERROR', 422, { input: { ...input, interestMethod: 'compound' } }, op.headers);
    expect(bad.errors?.[0].extensions.pointer).toBe('/interest_method');
    await gqlRefused(t, mutation, 'AMOUNT_PRECISION', 422, { input: { ...input, currency: 'JPY', principalMin: '100.5' } }, op.headers);

    const g = (await gqlOk(t, `{ loanProducts(perPage: 100) { data { ${P} } paginatorInfo { total } } }`)).loanProducts;
    const r = (await get(t, leader.headers, '/loan-products?per_page=100')).json();
    expect(g.data).toEqual(camel(r.data));
    expect(g.paginatorInfo.total).toBe(r.meta.total);
  });
});

describe('group loans over GraphQL', () => {
  it('applies, approves and disburses; the loan view equals the REST one', async () => {
    const applied = (
      await gqlOk(t, `mutation ($g: ID!, $input: GroupLoanApplicationInput!) { applyForGroupLoan(groupId: $g, input: $input) { ${LOAN} } }`, {
        g: groupId,
        input: { productId, principal: '600.00', userId: borrower.userId },
      })
    ).applyForGroupLoan;
    loanId = applied.id;
    // The leader applied for the borrower: the borrower's account is theirs and the operators' to see (as on REST).
    expect(applied).toMatchObject({ status: 'applied', userId: borrower.userId, accountId: null, principal: '600.00' });
    await gqlRefused(t, `mutation ($id: ID!) { approveGroupLoan(id: $id) { status } }`, 'ADMIN_REQUIRED', 403, { id: loanId }, borrower.headers);
    expect((await gqlOk(t, `mutation ($id: ID!) { approveGroupLoan(id: $id) { status approvedBy } }`, { id: loanId }, op.headers)).approveGroupLoan).toEqual({ status: 'approved', approvedBy: op.userId });
    const before = await available(t, borrower, acct.borrower);
    expect((await gqlOk(t, `mutation ($id: ID!) { disburseGroupLoan(id: $id) { status disbursedOn } }`, { id: loanId }, op.headers)).disburseGroupLoan.status).toBe('active');
    // The principal less the disbursement fee reached the borrower's account.
    expect(Number(await available(t, borrower, acct.borrower)) - Number(before)).toBeCloseTo(595, 2);

    const r = (await get(t, borrower.headers, `/loans/${loanId}`)).json().data;
    const v = (
      await gqlOk(
        t,
        `query ($id: ID!) { groupLoan(id: $id) { loan { ${LOAN} } schedule { ${INSTALMENT} } repayments { id amount source payerAccountId entryId allocation paidOn createdAt } totals { paid principalPaid interestPaid feesPaid outstandingPrincipal outstandingInterest outstandingFees arrears } daysPastDue } }`,
        { id: loanId },
        borrower.headers,
      )
    ).groupLoan;
    const { schedule, repayments, totals, days_past_due, ...loan } = r;
    expect(v).toEqual({ loan: camel(loan), schedule: camel(schedule), repayments: camel(repayments), totals: camel(totals), daysPastDue: days_past_due });
    expect(v.schedule).toHaveLength(6);

    const s = (await gqlOk(t, `query ($id: ID!) { groupLoanSchedule(loanId: $id, perPage: 4) { data { ${INSTALMENT} } paginatorInfo { total hasMorePages } } }`, { id: loanId }, member.headers)).groupLoanSchedule;
    expect(s.data).toEqual(camel((await get(t, member.headers, `/loans/${loanId}/schedule`)).json().data.slice(0, 4)));
    expect(s.paginatorInfo).toEqual({ total: 6, hasMorePages: true });
    const list = (await gqlOk(t, `query ($g: ID!) { groupLoans(groupId: $g) { data { ${LOAN} } } }`, { g: groupId }, member.headers)).groupLoans.data;
    expect(list).toEqual(camel((await get(t, member.headers, `/groups/${groupId}/loans`)).json().data));
  });

  it('the borrower repays through the domain (one repayment per Idempotency-Key); amounts and rights are refused as on REST', async () => {
    const REPAY = `mutation ($id: ID!, $amount: Decimal!) { repayGroupLoan(id: $id, amount: $amount) { id status } }`;
    const restPrecision = await restError(post(t, borrower.headers, `/loans/${loanId}/repayments`, { amount: '10.001' }));
    expect(restPrecision.status).toBe(422);
    await gqlRefused(t, REPAY, restPrecision.code, 422, { id: loanId, amount: '10.001' }, borrower.headers);
    // Only the borrower repays (the group leader is a member, not the borrower).
    const restNotBorrower = await restError(post(t, leader.headers, `/loans/${loanId}/repayments`, { amount: '10.00' }));
    await gqlRefused(t, REPAY, restNotBorrower.code, restNotBorrower.status, { id: loanId, amount: '10.00' });
    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, REPAY, 'INSUFFICIENT_PERMISSIONS', 403, { id: loanId, amount: '10.00' }, readOnly.headers);

    const headers = { ...borrower.headers, 'idempotency-key': `gql-repay-${loanId}` };
    const before = await available(t, borrower, acct.borrower);
    expect((await gqlOk(t, REPAY, { id: loanId, amount: '30.00' }, headers)).repayGroupLoan).toEqual({ id: loanId, status: 'active' });
    expect((await gqlOk(t, REPAY, { id: loanId, amount: '30.00' }, headers)).repayGroupLoan.id).toBe(loanId);
    const view = (await get(t, borrower.headers, `/loans/${loanId}`)).json().data;
    expect(view.repayments).toHaveLength(1);
    expect(view.repayments[0]).toMatchObject({ amount: '30.00', source: 'borrower' });
    expect(view.totals.paid).toBe('30.00');
    expect(Number(before) - Number(await available(t, borrower, acct.borrower))).toBeCloseTo(30, 2);
  });

  it("another user's loan is the REST not-found", async () => {
    const rest = await restError(get(t, outsider.headers, `/loans/${loanId}`));
    expect(rest.status).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { groupLoan(id: $id) { daysPastDue } }`, rest.code, 404, { id: loanId }, outsider.headers);
    await gqlRefused(t, `query ($id: ID!) { groupLoanProvision(loanId: $id) { ecl } }`, rest.code, 404, { id: loanId }, outsider.headers);
    await gqlRefused(t, `query ($id: ID!) { groupLoans(groupId: $id) { data { id } } }`, 'MF_GROUP_NOT_FOUND', 404, { id: groupId }, outsider.headers);
  });
});

describe('provisioning over GraphQL', () => {
  it("a loan's provision, the policies, a run and the portfolio report equal the REST answers", async () => {
    const prov = (await gqlOk(t, `query ($id: ID!) { groupLoanProvision(loanId: $id) { loanId currency stage daysPastDue ead pd lgd ecl policyVersion asOf } }`, { id: loanId }, borrower.headers)).groupLoanProvision;
    expect(prov).toEqual(camel((await get(t, borrower.headers, `/loans/${loanId}/provision`)).json().data));

    const POLICIES = `{ provisionPolicies { data { version effectiveFrom stages { stage pd lgd description } createdBy createdAt } } }`;
    await gqlRefused(t, POLICIES, 'ADMIN_REQUIRED', 403);
    const created = (
      await gqlOk(
        t,
        `mutation ($input: ProvisionPolicyInput!) { createProvisionPolicy(input: $input) { version effectiveFrom stages { stage pd lgd description } createdBy } }`,
        { input: { effectiveFrom: '2099-01-01', stages: [{ stage: 1, pd: '0.02', lgd: '0.5' }, { stage: 2, pd: '0.2', lgd: '0.5', description: 'watch' }, { stage: 3, pd: '1', lgd: '0.6' }] } },
        op.headers,
      )
    ).createProvisionPolicy;
    expect(created).toMatchObject({ effectiveFrom: '2099-01-01', createdBy: op.userId });
    expect(created.stages[1]).toEqual({ stage: 2, pd: '0.2', lgd: '0.5', description: 'watch' });
    const badRate = await gqlRefused(
      t,
      `mutation { createProvisionPolicy(input: { effectiveFrom: "2099-02-01", stages: [{ stage: 1, pd: "1.5", lgd: "0.5" }, { stage: 2, pd: "0.2", lgd: "0.5" }, { stage: 3, pd: "1", lgd: "0.6" }] }) { version } }`,
      'VALIDATION_ERROR',
      422,
      undefined,
      op.headers,
    );
    expect(badRate.errors?.[0].extensions.pointer).toBe('/stages/0/pd');
    const policies = (await gqlOk(t, POLICIES, undefined, op.headers)).provisionPolicies.data;
    expect(policies).toEqual(camel((await get(t, op.headers, '/provision-policies')).json().data));

    const runs = (await gqlOk(t, `mutation { runProvisioning { id currency runDate loans totalEcl allowanceBefore allowanceAfter change entryId } }`, undefined, op.headers)).runProvisioning;
    expect(runs.find((r: { currency: string }) => r.currency === 'USD')).toMatchObject({ loans: 1, totalEcl: prov.ecl, allowanceAfter: prov.ecl });
    await gqlRefused(t, `mutation { runProvisioning(runDate: "2020-13-01") { id } }`, 'VALIDATION_ERROR', 422, undefined, op.headers);
    const listed = (await gqlOk(t, `{ provisioningRuns(currency: "USD") { data { id currency runDate policyVersion loans totalEcl allowanceBefore allowanceAfter change entryId createdAt } } }`, undefined, op.headers)).provisioningRuns;
    expect(listed.data).toEqual(camel((await get(t, op.headers, '/provisioning/runs?currency=USD')).json().data));
    expect(listed.data.map((r: { id: string }) => r.id)).toContain(runs[0].id);

    const report = (
      await gqlOk(t, `{ loanPortfolioReport { data { currency asOf activeLoans grossPortfolio par30 par90 par30Amount par90Amount provisionedOn allowanceBalance allowanceByStage loansByStage } } }`, undefined, op.headers)
    ).loanPortfolioReport.data;
    const restReport = (await get(t, op.headers, '/reports/portfolio')).json().data;
    expect(report).toEqual(restReport.map((p: Record<string, unknown>) => ({ ...(camel({ ...p, allowance_by_stage: null, loans_by_stage: null }) as object), allowanceByStage: p.allowance_by_stage, loansByStage: p.loans_by_stage })));
    const outstanding = (await get(t, borrower.headers, `/loans/${loanId}`)).json().data.totals.outstanding_principal;
    expect(report.find((p: { currency: string }) => p.currency === 'USD')).toMatchObject({ activeLoans: 1, grossPortfolio: outstanding, allowanceBalance: prov.ecl });
    await gqlRefused(t, `{ loanPortfolioReport(asOf: "yesterday") { data { currency } } }`, 'VALIDATION_ERROR', 422, undefined, op.headers);
  });
});

describe('teller cash over GraphQL', () => {
  it('office, staff, vault, session, a counter deposit and the close: the domain moves the cash; the reads equal REST', async () => {
    const teller = await createTestUser();
    const office = (await gqlOk(t, `mutation { createTellerOffice(input: { name: "Kisumu", fxSpread: "0.02" }) { id name fxSpread vaults { currency } } }`, undefined, op.headers)).createTellerOffice;
    expect(office).toMatchObject({ name: 'Kisumu', fxSpread: '0.02', vaults: [] });
    await gqlRefused(t, `mutation { createTellerOffice(input: { name: "x", fxSpread: "2" }) { id } }`, 'VALIDATION_ERROR', 422, undefined, op.headers);
    const staff = (await gqlOk(t, `mutation ($o: ID!, $u: ID!) { assignOfficeStaff(officeId: $o, userId: $u) { officeId userId role } }`, { o: office.id, u: teller.userId }, op.headers)).assignOfficeStaff;
    expect(staff).toEqual({ officeId: office.id, userId: teller.userId, role: 'teller' });
    const funded = (
      await gqlOk(t, `mutation ($o: ID!) { fundOfficeVault(officeId: $o, currency: "USD", amount: "1000.00") { entryId office { vaults { currency balance } } } }`, { o: office.id }, { ...op.headers, 'idempotency-key': `fund-${office.id}` })
    ).fundOfficeVault;
    expect(funded.office.vaults).toEqual([{ currency: 'USD', balance: '1000.00' }]);
    await gqlRefused(t, `mutation ($o: ID!) { fundOfficeVault(officeId: $o, currency: "USD", amount: "5.00") { entryId } }`, 'ADMIN_REQUIRED', 403, { o: office.id }, teller.headers);
    const offices = (await gqlOk(t, `{ tellerOffices { data { id name externalId parentId fxSpread vaults { currency ledgerAccountId balance } createdAt } } }`, undefined, teller.headers)).tellerOffices.data;
    expect(offices).toEqual(camel((await get(t, teller.headers, '/offices')).json().data));

    const session = (
      await gqlOk(t, `mutation ($input: OpenTellerSessionInput!) { openTellerSession(input: $input) { ${SESSION} } }`, { input: { officeId: office.id, allocations: [{ currency: 'USD', amount: '200.00' }] } }, teller.headers)
    ).openTellerSession;
    expect(session).toMatchObject({ status: 'open', tellerUserId: teller.userId, tills: [{ currency: 'USD', allocated: '200.00', balance: '200.00' }] });

    // A counter deposit into the outsider's account: the customer's balance moves, as on REST.
    const before = await available(t, outsider, acct.outsider);
    const TX = `mutation ($input: TellerTransactionInput!) { createTellerTransaction(input: $input) { ${TXN} } }`;
    const txInput = { sessionId: session.id, type: 'cash_deposit', accountId: acct.outsider, amount: '40.00', currency: 'USD' };
    await gqlRefused(t, TX, 'VALIDATION_ERROR', 422, { input: { ...txInput, type: 'cash_gift' } }, teller.headers);
    await gqlRefused(t, TX, 'AMOUNT_PRECISION', 422, { input: { ...txInput, amount: '1.005' } }, teller.headers);
    const tx = (await gqlOk(t, TX, { input: txInput }, teller.headers)).createTellerTransaction;
    expect(tx).toMatchObject({ type: 'cash_deposit', amount: '40.00', accountId: acct.outsider, officeId: office.id });
    expect(Number(await available(t, outsider, acct.outsider)) - Number(before)).toBeCloseTo(40, 2);
    const txs = (await gqlOk(t, `query ($s: ID!) { tellerTransactions(sessionId: $s) { data { ${TXN} } paginatorInfo { total } } }`, { s: session.id }, teller.headers)).tellerTransactions;
    expect(txs.data).toEqual(camel((await t.app.inject({ method: 'GET', url: `${MF}/teller/transactions?session_id=${session.id}`, headers: teller.headers })).json().data));

    const viaGql = (await gqlOk(t, `query ($id: ID!) { tellerSession(id: $id) { ${SESSION} } }`, { id: session.id }, teller.headers)).tellerSession;
    expect(viaGql).toEqual(camel((await get(t, teller.headers, `/teller/sessions/${session.id}`)).json().data));
    expect(viaGql.tills[0].balance).toBe('240.00');
    const sessions = (await gqlOk(t, `{ tellerSessions(status: "open") { data { id } } }`, undefined, teller.headers)).tellerSessions.data;
    expect(sessions.map((s: { id: string }) => s.id)).toEqual([session.id]);
    await gqlRefused(t, `{ tellerSessions(status: "paused") { data { id } } }`, 'VALIDATION_ERROR', 422, undefined, teller.headers);

    // Another user's session: the REST code.
    const rest = await restError(get(t, outsider.headers, `/teller/sessions/${session.id}`));
    expect(rest.status).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { tellerSession(id: $id) { id } }`, rest.code, 404, { id: session.id }, outsider.headers);
    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, `mutation ($id: ID!) { closeTellerSession(id: $id, counted: []) { id } }`, 'INSUFFICIENT_PERMISSIONS', 403, { id: session.id }, readOnly.headers);

    // Close with 5.00 short: the session waits for a supervisor.
    const closed = (await gqlOk(t, `mutation ($id: ID!) { closeTellerSession(id: $id, counted: [{ currency: "USD", amount: "235.00" }]) { status tills { expected counted variance } } }`, { id: session.id }, teller.headers)).closeTellerSession;
    expect(closed).toEqual({ status: 'variance_pending', tills: [{ expected: '240.00', counted: '235.00', variance: '-5.00' }] });
    const self = await restError(post(t, teller.headers, `/teller/sessions/${session.id}/variance/approve`));
    await gqlRefused(t, `mutation ($id: ID!) { approveTellerVariance(id: $id) { status } }`, self.code, self.status, { id: session.id }, teller.headers);
    expect(self.code).toBe('VARIANCE_SELF_APPROVAL');
    const supervisor = await createTestUser();
    await gqlOk(t, `mutation ($o: ID!, $u: ID!) { assignOfficeStaff(officeId: $o, userId: $u, role: "supervisor") { role } }`, { o: office.id, u: supervisor.userId }, op.headers);
    const approved = (await gqlOk(t, `mutation ($id: ID!) { approveTellerVariance(id: $id) { status varianceApprovedBy varianceEntryId } }`, { id: session.id }, supervisor.headers)).approveTellerVariance;
    expect(approved).toMatchObject({ status: 'closed', varianceApprovedBy: supervisor.userId });
    expect((await get(t, teller.headers, `/teller/sessions/${session.id}`)).json().data.status).toBe('closed');
  });
});

describe('microfinance fields without credentials', () => {
  it('a guest is refused as on REST', async () => {
    const r = await gql(t, `{ loanProducts { data { id } } }`, undefined, {});
    expect(r.errors?.[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });
});
