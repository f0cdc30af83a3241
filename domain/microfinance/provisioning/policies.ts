/**
 * Provisioning policies: PD and LGD per IFRS 9 stage, versioned by the date they take effect
 * (mf_provision_policies). Operators add a version; a run uses the version in force on its run date.
 * The seeded version 1 is illustrative, not calibrated (docs/microfinance-provisioning.md).
 */
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { DecimalMoney } from '../../money/amount';
import { DomainError } from '../../platform/errors';
import { policyInForce, STAGES, type ProvisionPolicy, type Stage, type StageRates } from './ecl';

export interface StoredPolicy extends ProvisionPolicy {
  descriptions: Record<Stage, string | null>;
  createdBy: string | null;
  createdAt: Date;
}

interface Row {
  version: number;
  effective_from: string;
  stage: number;
  pd: string;
  lgd: string;
  description: string | null;
  created_by: string | null;
  created_at: Date;
}

function group(rows: Row[]): StoredPolicy[] {
  const byVersion = new Map<number, StoredPolicy>();
  for (const r of rows) {
    let p = byVersion.get(r.version);
    if (!p) {
      p = {
        version: r.version,
        effectiveFrom: r.effective_from,
        stages: {} as Record<Stage, StageRates>,
        descriptions: {} as Record<Stage, string | null>,
        createdBy: r.created_by,
        createdAt: r.created_at,
      };
      byVersion.set(r.version, p);
    }
    const stage = r.stage as Stage;
    p.stages[stage] = { pd: new DecimalMoney(r.pd).toFixed(), lgd: new DecimalMoney(r.lgd).toFixed() };
    p.descriptions[stage] = r.description;
  }
  return [...byVersion.values()].filter((p) => STAGES.every((s) => p.stages[s]));
}

const SELECT = `SELECT version, effective_from::text AS effective_from, stage, pd::text, lgd::text, description, created_by, created_at
                FROM mf_provision_policies`;

/** Every policy version, newest first. */
export async function listProvisionPolicies(client: Queryable = getPool()): Promise<StoredPolicy[]> {
  const { rows } = await client.query<Row>(`${SELECT} ORDER BY version DESC, stage`);
  return group(rows);
}

/** The version in force on a date (YYYY-MM-DD). */
export async function provisionPolicyOn(date: string, client: Queryable = getPool()): Promise<StoredPolicy> {
  const { rows } = await client.query<Row>(
    `${SELECT} WHERE version = (SELECT version FROM mf_provision_policies WHERE effective_from <= $1::date
                                ORDER BY effective_from DESC, version DESC LIMIT 1)
     ORDER BY stage`,
    [date],
  );
  const p = policyInForce(group(rows), date);
  if (!p) throw new DomainError('PROVISION_POLICY_NOT_FOUND', `no provisioning policy is in force on ${date}`);
  return p;
}

export interface NewPolicyInput {
  effectiveFrom: string;
  stages: Array<{ stage: number; pd: string; lgd: string; description?: string }>;
  createdBy: string;
}

const RATE = /^(0(\.\d{1,8})?|1(\.0{1,8})?)$/;

/** Checks a new version: a real date, each stage exactly once, PD and LGD decimal strings in [0, 1] with at most 8 places. */
export function validatePolicyInput(input: NewPolicyInput): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.effectiveFrom) || Number.isNaN(Date.parse(`${input.effectiveFrom}T00:00:00Z`))
    || new Date(`${input.effectiveFrom}T00:00:00Z`).toISOString().slice(0, 10) !== input.effectiveFrom) {
    throw new DomainError('VALIDATION_ERROR', 'effective_from must be a date (YYYY-MM-DD)', '/effective_from');
  }
  const seen = new Set<number>();
  input.stages.forEach((s, i) => {
    if (!STAGES.includes(s.stage as Stage) || seen.has(s.stage)) {
      throw new DomainError('VALIDATION_ERROR', 'stages must list stage 1, 2 and 3 once each', `/stages/${i}/stage`);
    }
    seen.add(s.stage);
    for (const f of ['pd', 'lgd'] as const) {
      if (typeof s[f] !== 'string' || !RATE.test(s[f])) {
        throw new DomainError('VALIDATION_ERROR', `${f} must be a decimal string between 0 and 1 (at most 8 places)`, `/stages/${i}/${f}`);
      }
    }
  });
  if (seen.size !== STAGES.length) throw new DomainError('VALIDATION_ERROR', 'stages must list stage 1, 2 and 3 once each', '/stages');
}

/** Adds the next policy version, effective from the given date (runs already made keep their version). */
export async function createProvisionPolicy(input: NewPolicyInput): Promise<StoredPolicy> {
  validatePolicyInput(input);
  return withTransaction(async (c) => {
    // Versions are numbered in order: one writer at a time.
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('mf_provision_policies'))`);
    const { rows } = await c.query<{ v: number }>('SELECT COALESCE(max(version), 0) + 1 AS v FROM mf_provision_policies');
    const version = rows[0].v;
    for (const s of input.stages) {
      await c.query(
        `INSERT INTO mf_provision_policies (version, effective_from, stage, pd, lgd, description, created_by)
         VALUES ($1, $2::date, $3, $4::numeric, $5::numeric, $6, $7)`,
        [version, input.effectiveFrom, s.stage, s.pd, s.lgd, s.description ?? null, input.createdBy],
      );
    }
    const created = await c.query<Row>(`${SELECT} WHERE version = $1 ORDER BY stage`, [version]);
    return group(created.rows)[0];
  });
}
