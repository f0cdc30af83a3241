/**
 * A Travel Rule check for one of the caller's transfers: the parties as IVMS101, the value in USD
 * at the platform's rates (rate and time stored), the jurisdiction's threshold (thresholds.ts),
 * what identification that requires, and sanctions screening of both parties against the loaded
 * OFAC list. A failed check is a result (is_compliant false with coded issues), not an error.
 * Stored with travel_rule.check.completed, plus compliance.violation.detected for a sanctions hit,
 * in one transaction.
 */
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvents, type OutboxEventInput } from '../../events/outbox';
import { DecimalMoney as D, parseAmount, AmountError } from '../../money/amount';
import { loadConfig } from '../../platform/config';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { screenNames, type ScreeningResult } from '../sanctions';
import { toIvms101, type PartyInput } from './parties';
import { signalWorkflow } from '../../temporal/signals';
import { travelRuleRequirement } from './requirement';
import { thresholdFor, type ThresholdRow } from './thresholds';

/** The signal a bridge waiting for its Travel Rule check receives when one is stored. */
export const TRAVEL_RULE_CHECK_SIGNAL = 'travelRuleCheck';

export interface CheckInput {
  userId: string;
  environment: Environment;
  transferId: string;
  originator: PartyInput;
  beneficiary: PartyInput;
  amount: string;
  currency: string;
  assetType?: string | null;
  purpose?: string | null;
  jurisdiction: string;
}

export interface ComplianceIssue {
  code: string;
  description: string;
}

export interface TravelRuleCheck {
  id: string;
  environment: Environment;
  userId: string;
  transferId: string;
  jurisdiction: string;
  amount: string;
  currency: string;
  amountUsd: string;
  usdRate: string;
  usdRateAsOf: Date;
  threshold: ThresholdRow & { amountUsd: string };
  exceedsThreshold: boolean;
  fullIdentificationRequired: boolean;
  isCompliant: boolean;
  riskLevel: 'low' | 'medium' | 'high';
  originatorVerified: boolean;
  beneficiaryVerified: boolean;
  sanctions: { originatorCleared: boolean; beneficiaryCleared: boolean; provider: string; screenedAt: string; listVersion: string | null; originator: ScreeningResult | null; beneficiary: ScreeningResult | null };
  complianceIssues: ComplianceIssue[];
  recommendations: string[];
  ivms101: unknown;
  checkedAt: Date;
  validUntil: Date;
}

interface TransferFacts {
  kind: 'transfer' | 'bridge';
  amount: string;
  assetCode: string;
  workflowId: string | null;
}

async function findTransfer(userId: string, environment: Environment, id: string, c: Queryable): Promise<TransferFacts> {
  const { rows } = await c.query<{ kind: 'transfer' | 'bridge'; amount: string; asset_code: string; workflow_id: string | null }>(
    `SELECT 'transfer' AS kind, amount, asset_code, workflow_id FROM transfers WHERE id = $1 AND user_id = $2 AND environment = $3
     UNION ALL SELECT 'bridge', amount, asset_code, workflow_id FROM bridge_transfers WHERE id = $1 AND user_id = $2 AND environment = $3 LIMIT 1`,
    [id, userId, environment],
  );
  if (!rows[0]) throw new DomainError('TRANSFER_NOT_FOUND', `Transfer ${id.slice(0, 60)} not found`, '/transfer_id');
  return { kind: rows[0].kind, amount: rows[0].amount, assetCode: rows[0].asset_code, workflowId: rows[0].workflow_id };
}

const present = (v: string | undefined) => typeof v === 'string' && v.trim() !== '';

export async function runTravelRuleCheck(input: CheckInput): Promise<TravelRuleCheck> {
  let amount: string;
  try {
    amount = parseAmount(input.amount, 18);
  } catch (err) {
    if (err instanceof AmountError) throw new DomainError(err.code, err.message, '/transfer_details/amount');
    throw err;
  }
  if (new D(amount).isZero()) throw new DomainError('AMOUNT_NOT_POSITIVE', 'amount must be positive', '/transfer_details/amount');
  const currency = input.currency.trim().toUpperCase();
  thresholdFor(input.jurisdiction);
  const transfer = await findTransfer(input.userId, input.environment, input.transferId, getPool());
  const ivms101 = toIvms101(input.originator, input.beneficiary, input.userId);

  const req = await travelRuleRequirement(amount, currency, input.jurisdiction);
  const { row } = req;
  const amountUsd = new D(req.amountUsd);
  const thresholdUsd = new D(req.thresholdUsd);
  const thresholdRate = { rate: req.thresholdRate };
  const rate = { rate: req.usdRate, asOf: req.usdRateAsOf };
  const exceeds = req.required;
  const issues: ComplianceIssue[] = [];
  const recommendations: string[] = [];

  // The check speaks for the transfer it names: the stated amount and currency must be its own.
  if (!new D(transfer.amount).eq(amount) || transfer.assetCode !== currency) {
    issues.push({
      code: 'TRANSFER_DETAILS_MISMATCH',
      description: `The transfer moves ${new D(transfer.amount).toFixed()} ${transfer.assetCode}; the check states ${amount} ${currency.slice(0, 12)}.`,
    });
    recommendations.push("Check again with the transfer's own amount and currency.");
  }

  const o = input.originator;
  const b = input.beneficiary;
  const originatorVerified = present(o.name) && present(o.account_number ?? o.account);
  if (!originatorVerified) issues.push({ code: 'ORIGINATOR_INFO_INCOMPLETE', description: 'The originator needs a name and an account number (or wallet address).' });
  let beneficiaryVerified = present(b.name) && present(b.account_number ?? b.account);
  if (!beneficiaryVerified) issues.push({ code: 'BENEFICIARY_INFO_INCOMPLETE', description: 'The beneficiary needs a name and an account number (or wallet address).' });
  const beneficiaryVasp = present(b.institution_name) || present(b.vasp_id);
  if (exceeds && !beneficiaryVasp) {
    const selfHostedLimit = row.selfHostedVerificationAbove;
    if (selfHostedLimit === undefined || amountUsd.gt(new D(selfHostedLimit).times(thresholdRate.rate))) {
      beneficiaryVerified = false;
      issues.push({
        code: selfHostedLimit !== undefined ? 'SELF_HOSTED_WALLET_OWNERSHIP_UNVERIFIED' : 'BENEFICIARY_VASP_MISSING',
        description:
          selfHostedLimit !== undefined
            ? `Above ${selfHostedLimit} ${row.currency} a transfer to a self-hosted address needs proof that the beneficiary controls it (${row.regulations[0]}).`
            : 'Above the threshold the beneficiary’s VASP (institution name and country) must be identified.',
      });
      recommendations.push(selfHostedLimit !== undefined ? 'Verify ownership of the self-hosted address (e.g. a signed message) before sending.' : 'Collect the beneficiary VASP’s name and country, or confirm the address is self-hosted.');
    }
  }
  if (exceeds && present(b.institution_name) && !present(b.institution_country)) {
    issues.push({ code: 'BENEFICIARY_VASP_COUNTRY_MISSING', description: 'The beneficiary VASP’s country is required above the threshold.' });
  }

  let screening: ScreeningResult[] | null = null;
  try {
    screening = await screenNames([o.name, b.name]);
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'SANCTIONS_LIST_UNAVAILABLE')) throw err;
    issues.push({ code: 'SANCTIONS_SCREENING_UNAVAILABLE', description: 'No sanctions list is loaded: the parties could not be screened, so the check cannot pass.' });
    recommendations.push('Load the sanctions list (operators: POST /api/v2/regtech/sanctions/reload) and check again.');
  }
  const [os, bs] = screening ?? [null, null];
  for (const [party, s] of [['originator', os], ['beneficiary', bs]] as const) {
    if (s?.hit) {
      issues.push({ code: 'SANCTIONS_HIT', description: `The ${party} matches ${s.matches[0].name} on the OFAC SDN list (score ${s.matches[0].score}).` });
      recommendations.push(`Do not send: hold the transfer and escalate the ${party}'s match for review.`);
    }
  }
  if (exceeds && issues.length === 0) recommendations.push('Transmit the IVMS101 payload to the beneficiary VASP with the transfer.');

  const hit = Boolean(os?.hit || bs?.hit);
  const riskLevel = hit || !screening ? 'high' : issues.length > 0 || exceeds ? 'medium' : 'low';
  const cfg = loadConfig();
  const checkedAt = new Date();
  const check: TravelRuleCheck = {
    id: newId('trc'),
    environment: input.environment,
    userId: input.userId,
    transferId: input.transferId,
    jurisdiction: row.jurisdiction,
    amount,
    currency,
    amountUsd: amountUsd.toFixed(2),
    usdRate: rate.rate,
    usdRateAsOf: rate.asOf,
    threshold: { ...row, amountUsd: thresholdUsd.toFixed(2) },
    exceedsThreshold: exceeds,
    fullIdentificationRequired: exceeds,
    isCompliant: issues.length === 0,
    riskLevel,
    originatorVerified,
    beneficiaryVerified,
    sanctions: {
      originatorCleared: screening !== null && !os!.hit,
      beneficiaryCleared: screening !== null && !bs!.hit,
      provider: 'OFAC SDN (platform screening, Jaro-Winkler)',
      screenedAt: checkedAt.toISOString(),
      listVersion: os?.listVersion ?? null,
      originator: os,
      beneficiary: bs,
    },
    complianceIssues: issues,
    recommendations,
    ivms101,
    checkedAt,
    validUntil: new Date(checkedAt.getTime() + cfg.travelRuleCheckValidityHours * 3_600_000),
  };
  await withTransaction(async (c) => {
    await c.query(
      `INSERT INTO travel_rule_checks (id, environment, user_id, transfer_id, transfer_kind, jurisdiction, ivms101, amount, currency, asset_type, purpose,
         amount_usd, usd_rate, usd_rate_as_of, threshold, exceeds_threshold, full_identification_required, is_compliant, risk_level,
         originator_verified, beneficiary_verified, sanctions, compliance_issues, recommendations, checked_at, valid_until)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26)`,
      [check.id, check.environment, check.userId, check.transferId, transfer.kind, check.jurisdiction, JSON.stringify(ivms101), amount, currency, input.assetType ?? null,
        input.purpose ?? null, check.amountUsd, check.usdRate, check.usdRateAsOf, JSON.stringify(check.threshold), exceeds, exceeds, check.isCompliant, riskLevel,
        originatorVerified, beneficiaryVerified, JSON.stringify(check.sanctions), JSON.stringify(issues), JSON.stringify(recommendations), checkedAt, check.validUntil],
    );
    const events: OutboxEventInput[] = [
      {
        type: 'travel_rule.check.completed', environment: check.environment, userId: check.userId, aggregateType: 'travel_rule_check', aggregateId: check.id,
        data: {
          check_id: check.id, transfer_id: check.transferId, jurisdiction: check.jurisdiction, is_compliant: check.isCompliant, risk_level: riskLevel,
          amount_usd: check.amountUsd, exceeds_threshold: exceeds, issue_codes: issues.map((i) => i.code), checked_at: checkedAt.toISOString(), valid_until: check.validUntil.toISOString(),
        },
      },
    ];
    for (const [party, s] of [['originator', os], ['beneficiary', bs]] as const) {
      if (!s?.hit) continue;
      events.push({
        type: 'compliance.violation.detected', environment: check.environment, userId: check.userId, aggregateType: 'travel_rule_check', aggregateId: check.id,
        data: {
          framework: 'travel_rule', check_id: check.id, transfer_id: check.transferId, code: 'SANCTIONS_HIT', description: `The ${party} matches the OFAC SDN list`,
          party, matches: s.matches.map((m) => ({ entry_id: m.entryId, name: m.name, score: m.score })), list_version: s.listVersion, detected_at: checkedAt.toISOString(),
        },
      });
    }
    await writeOutboxEvents(c, events);
  });
  // A bridge waiting for its check wakes at once; a lost signal is caught by the workflow's polling.
  if (transfer.kind === 'bridge' && transfer.workflowId) await signalWorkflow(transfer.workflowId, TRAVEL_RULE_CHECK_SIGNAL, { check_id: check.id }).catch(() => false);
  return check;
}
