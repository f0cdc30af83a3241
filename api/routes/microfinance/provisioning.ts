/**
 * IFRS 9 provisioning of microfinance loans (domain/microfinance/provisioning;
 * docs/microfinance-provisioning.md): one loan's provision (borrower or operator), policy versions,
 * provisioning runs and the portfolio report (operators). Mounted under /api/v1/microfinance.
 */
import type { FastifyInstance } from 'fastify';
import {
  createProvisionPolicy,
  getLoanProvision,
  listProvisionPolicies,
  listProvisionRuns,
  portfolioReport,
  runProvisioningForEnvironment,
  runDateOrToday,
} from '../../../domain/microfinance/provisioning';
import { paginate, pageParams } from '../../pagination';
import { envelope, errorResponses, paginatedEnvelope } from '../../schemas';
import { principalOf } from '../../types';
import {
  TAG,
  loanProvisionSchema,
  policyBody,
  policySchema,
  portfolioSchema,
  presentLoanProvision,
  presentPolicy,
  presentPortfolio,
  presentRun,
  portfolioQuery,
  runBody,
  runsQuery,
  runSchema,
} from '../../operations/microfinance/provisioning-schemas';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } };
const list = (item: object) => ({ type: 'object', properties: { data: { type: 'array', items: item } } });

export function provisioningRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string } }>(
    '/loans/:id/provision',
    {
      schema: {
        tags: [TAG],
        summary: "A loan's IFRS 9 provision, computed now",
        description:
          'Stage (1: ≤ 30 days past due, 2: > 30, 3: > 90), days past due, exposure at default (outstanding principal + accrued interest), PD and LGD of the policy in force today, and ECL = PD × LGD × EAD. The borrower sees their own loans, operators any loan of their environment; another\'s loan is 404. Only active loans are provisioned (422 MF_LOAN_NOT_ACTIVE).',
        params: idParams,
        response: { 200: envelope(loanProvisionSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentLoanProvision(await getLoanProvision(principalOf(request), request.params.id)) }),
  );

  app.get(
    '/provision-policies',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: 'Provisioning policy versions: PD and LGD per stage (platform operators only)',
        description: 'Newest first. Version 1 is an illustrative default, not calibrated.',
        response: { 200: list(policySchema), ...errorResponses },
      },
    },
    async () => ({ data: (await listProvisionPolicies()).map(presentPolicy) }),
  );

  app.post<{ Body: { effective_from: string; stages: Array<{ stage: number; pd: string; lgd: string; description?: string }> } }>(
    '/provision-policies',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: 'Add a provisioning policy version (platform operators only)',
        description:
          'PD and LGD for stages 1, 2 and 3 (decimal strings in [0, 1]); the version takes the next number and applies to runs on or after effective_from. Runs already made keep their version.',
        body: policyBody,
        response: { 201: envelope(policySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const policy = await createProvisionPolicy({ effectiveFrom: b.effective_from, stages: b.stages, createdBy: principalOf(request).userId });
      return reply.code(201).send({ data: presentPolicy(policy) });
    },
  );

  app.post<{ Body: { run_date?: string } }>(
    '/provisioning/runs',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: "Run the provisioning now for the caller's environment (platform operators only)",
        description:
          'Per currency: every active loan\'s ECL, the provisions replaced and one ledger entry for the change in allowance (Dr provision expense / Cr loan-loss allowance, or the reverse). Idempotent per currency and run date: a second run of the same day returns the first summary and posts nothing. A run date before a currency\'s latest run is 422 PROVISION_RUN_DATE_STALE.',
        body: runBody,
        response: { 200: list(runSchema), ...errorResponses },
      },
    },
    async (request) => {
      const runDate = runDateOrToday(request.body?.run_date);
      return { data: (await runProvisioningForEnvironment(principalOf(request).environment, runDate)).map(presentRun) };
    },
  );

  app.get<{ Querystring: { currency?: string; page?: number; per_page?: number } }>(
    '/provisioning/runs',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: "Provisioning runs of the caller's environment, newest first (platform operators only)",
        querystring: runsQuery,
        response: { 200: paginatedEnvelope(runSchema), ...errorResponses },
      },
    },
    async (request) => {
      const pp = pageParams(request.query);
      const { items, total } = await listProvisionRuns(principalOf(request).environment, { currency: request.query.currency, limit: pp.perPage, offset: pp.offset });
      return paginate(request, items.map(presentRun), total, pp);
    },
  );

  app.get<{ Querystring: { as_of?: string } }>(
    '/reports/portfolio',
    {
      config: { admin: true },
      schema: {
        tags: [TAG],
        summary: "Loan portfolio quality per currency of the caller's environment (platform operators only)",
        description:
          'Gross portfolio (outstanding principal of active loans), PAR30 and PAR90 as of the date (today by default), and the allowance and loans by stage booked by the latest provisioning run, with the allowance account\'s ledger balance.',
        querystring: portfolioQuery,
        response: { 200: list(portfolioSchema), ...errorResponses },
      },
    },
    async (request) => {
      const asOf = runDateOrToday(request.query.as_of, null);
      return { data: (await portfolioReport(principalOf(request).environment, asOf)).map((p) => presentPortfolio(p, asOf)) };
    },
  );
}
