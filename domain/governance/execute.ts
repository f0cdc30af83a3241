/**
 * Executing a succeeded proposal: the basket is rebalanced to the proposed weights as the IMF
 * changes the SDR at a review. At the transition rates (the latest rates at execution) the new
 * amounts are amountsForWeights(new weights, current value), so the basket's value is unchanged
 * (to the rounding of five significant digits per amount) and the new weights hold at those rates.
 *
 * In ONE transaction, under the basket's lock (no compose or decompose in between):
 * - one balanced ledger entry moves each component's reserve to exactly
 *   reserveTarget(outstanding, new amount) (0 for a removed component). The surplus goes to, and
 *   the deficit comes from, the platform's rebalancing desk `basket_rebalance:<basket>` (an internal
 *   debit-normal account per asset: the market desk that sells what the basket drops and buys what
 *   it adds). No units outstanding: nothing moves and there is no entry;
 * - basket_components, basket_states (version + 1, last_rebalanced_at) and a basket_revisions row;
 * - the proposal becomes executed; basket.rebalanced and governance.proposal.executed are written.
 *
 * Exactly once: a proposal already executed is PROPOSAL_ALREADY_EXECUTED, unless the caller is the
 * very step that executed it (same idempotency key: a workflow's retry), which gets it back.
 */
import { getAsset } from '../assets';
import { amountsForWeights, lockBasket, reserveAccount, reserveTarget, valueBasket, type Basket } from '../baskets';
import { withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvents } from '../events/outbox';
import { internalLedgerAccountId, LedgerError, postEntry, type LineInput } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';
import { lockProposal, proposalEvent, updateProposal, type Proposal } from './records';

export function rebalanceDeskAccount(environment: Environment, basketCode: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode, code: `basket_rebalance:${basketCode}`, name: `${basketCode} rebalancing desk ${assetCode}`, normalBalance: 'debit', noOverdraft: false },
    c,
  );
}

export interface RebalancePlan {
  valueUsd: string;
  rates: Map<string, string>;
  /** Every asset of the old or the new composition, with its old and new amount ('0' when absent). */
  components: Array<{ assetCode: string; previousAmount: string; amount: string; targetWeight: string; rateUsd: string; precision: number }>;
}

/** The new amounts at the latest rates, keeping the current value (pure arithmetic on the locked basket). */
export async function planRebalance(basket: Basket, proposed: Proposal['components'], c: Queryable): Promise<RebalancePlan> {
  const rates = await latestRates(c);
  const rate = (code: string) => {
    const r = rates.get(code);
    if (!r) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${code}`);
    return r;
  };
  const current = valueBasket(basket.components.map((x) => ({ assetCode: x.assetCode, amount: x.amount, rate: rate(x.assetCode) })));
  const next = amountsForWeights(proposed.map((x) => ({ assetCode: x.assetCode, weight: x.weight, priceUsd: rate(x.assetCode) })), current.valueUsd);
  const before = new Map(basket.components.map((x) => [x.assetCode, x.amount]));
  const after = new Map(next.map((x) => [x.assetCode, x]));
  const codes = [...new Set([...before.keys(), ...after.keys()])].sort();
  const components: RebalancePlan['components'] = [];
  for (const code of codes) {
    const asset = await getAsset(code, c);
    if (!asset) throw new DomainError('ASSET_UNAVAILABLE', `Component ${code} is not an active asset`);
    components.push({
      assetCode: code,
      previousAmount: before.get(code) ?? '0',
      amount: after.get(code)?.amount ?? '0',
      targetWeight: after.get(code)?.weight ?? '0',
      rateUsd: rate(code),
      precision: asset.precision,
    });
  }
  return { valueUsd: current.valueUsd, rates, components };
}

async function reserveHeld(accountId: string, c: Queryable): Promise<string> {
  const { rows } = await c.query<{ b: string }>('SELECT (credits_posted - debits_posted)::text AS b FROM ledger_accounts WHERE id = $1', [accountId]);
  return rows[0]?.b ?? '0';
}

export async function executeProposal(id: string, opts: { idempotencyKey: string }): Promise<Proposal> {
  return withTransaction(async (c) => {
    const p = await lockProposal(id, c);
    if (p.status === 'executed') {
      if (p.executionKey === opts.idempotencyKey) return p;
      throw new DomainError('PROPOSAL_ALREADY_EXECUTED', `Proposal ${p.id} was executed at ${p.executedAt!.toISOString()} (version ${p.revisionVersion})`, undefined, {
        executed_at: p.executedAt!.toISOString(),
        revision_version: p.revisionVersion,
      });
    }
    if (p.status !== 'succeeded') throw new DomainError('PROPOSAL_NOT_SUCCEEDED', `Only a succeeded proposal is executed; this one is ${p.status}`, undefined, { status: p.status });

    const basket = await lockBasket(p.basketCode, p.environment, c);
    const plan = await planRebalance(basket, p.components, c);
    const lines: LineInput[] = [];
    for (const x of plan.components) {
      const reserve = await reserveAccount(p.environment, basket.code, x.assetCode, c);
      const target = new D(x.amount).isZero() ? new D(0) : new D(reserveTarget(basket.outstanding, x.amount, x.precision));
      const delta = target.minus(await reserveHeld(reserve, c));
      if (delta.isZero()) continue;
      const desk = await rebalanceDeskAccount(p.environment, basket.code, x.assetCode, c);
      const amount = delta.abs().toFixed(x.precision);
      const [debit, credit] = delta.gt(0) ? [desk, reserve] : [reserve, desk];
      lines.push({ accountId: debit, direction: 'debit', amount }, { accountId: credit, direction: 'credit', amount });
    }
    const version = basket.version + 1;
    const entry = lines.length === 0 ? null : await postEntry(
      {
        environment: p.environment,
        idempotencyKey: opts.idempotencyKey,
        type: 'basket_rebalance',
        description: `Rebalance ${basket.code} to version ${version} (proposal ${p.id})`,
        reference: p.id,
        lines,
        metadata: { proposal_id: p.id, basket_code: basket.code, version, outstanding: basket.outstanding, value_usd: plan.valueUsd },
      },
      c,
    ).catch((err) => {
      if (err instanceof LedgerError) throw new DomainError(err.code, err.message);
      throw err;
    });

    const kept = plan.components.filter((x) => !new D(x.amount).isZero());
    await c.query('DELETE FROM basket_components WHERE environment = $1 AND basket_code = $2', [p.environment, basket.code]);
    await c.query(
      `INSERT INTO basket_components (environment, basket_code, asset_code, amount, target_weight)
       SELECT $1, $2, x.asset_code, x.amount::numeric, x.weight::numeric FROM jsonb_to_recordset($3::jsonb) x(asset_code text, amount text, weight text)`,
      [p.environment, basket.code, JSON.stringify(kept.map((x) => ({ asset_code: x.assetCode, amount: x.amount, weight: x.targetWeight })))],
    );
    const { rows: state } = await c.query<{ version: number; last_rebalanced_at: Date }>(
      `UPDATE basket_states SET version = version + 1, last_rebalanced_at = now(), updated_at = now()
        WHERE environment = $1 AND basket_code = $2 RETURNING version, last_rebalanced_at`,
      [p.environment, basket.code],
    );
    await c.query(
      `INSERT INTO basket_revisions (id, environment, basket_code, version, components, rates, value_usd, proposal_id, entry_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        newId('brev'), p.environment, basket.code, state[0].version,
        JSON.stringify(kept.map((x) => ({ asset_code: x.assetCode, amount: x.amount, target_weight: x.targetWeight }))),
        JSON.stringify(Object.fromEntries(plan.components.map((x) => [x.assetCode, x.rateUsd]))),
        plan.valueUsd, p.id, entry?.id ?? null,
      ],
    );
    const done = await updateProposal(c, p.id, `status = 'executed', executed_at = now(), revision_version = $2, execution_entry_id = $3, execution_key = $4`, [
      state[0].version, entry?.id ?? null, opts.idempotencyKey,
    ]);
    await writeOutboxEvents(c, [
      {
        type: 'basket.rebalanced', environment: p.environment, userId: null, aggregateType: 'basket', aggregateId: basket.code,
        data: {
          basket_code: basket.code,
          version: state[0].version,
          previous_version: basket.version,
          proposal_id: p.id,
          value_usd: plan.valueUsd,
          outstanding: basket.outstanding,
          components: plan.components.map((x) => ({ asset_code: x.assetCode, previous_amount: x.previousAmount, amount: x.amount, target_weight: x.targetWeight, rate_usd: x.rateUsd })),
          entry_id: entry?.id ?? null,
          rebalanced_at: state[0].last_rebalanced_at.toISOString(),
        },
      },
      proposalEvent(done, 'governance.proposal.executed', {
        proposal_id: done.id, basket_code: done.basketCode, status: 'executed', version: state[0].version, value_usd: plan.valueUsd,
        entry_id: entry?.id ?? null, executed_at: done.executedAt!.toISOString(),
      }),
    ]);
    return done;
  });
}
