/**
 * Travel Rule: thresholds by jurisdiction (thresholds.ts), parties as IVMS101 (parties.ts), the
 * check with sanctions screening (check.ts) and stored checks (records.ts). docs/regtech.md.
 */
import type { Principal } from '../../auth/principal';
import { runTravelRuleCheck, type TravelRuleCheck } from './check';
import type { PartyInput } from './parties';

export * from './thresholds';
export * from './parties';
export * from './check';
export * from './records';
export * from './requirement';

/** POST /api/v1/regtech/travel-rule/check (the spec's body). */
export interface TravelRuleCheckRequest {
  transfer_id: string;
  originator: PartyInput;
  beneficiary: PartyInput;
  transfer_details: { amount: string; currency: string; asset_type?: string; purpose?: string };
  jurisdiction: string;
}

export function checkTravelRule(p: Principal, b: TravelRuleCheckRequest): Promise<TravelRuleCheck> {
  return runTravelRuleCheck({
    userId: p.userId,
    environment: p.environment,
    transferId: b.transfer_id,
    originator: b.originator,
    beneficiary: b.beneficiary,
    amount: b.transfer_details.amount,
    currency: b.transfer_details.currency,
    assetType: b.transfer_details.asset_type,
    purpose: b.transfer_details.purpose,
    jurisdiction: b.jurisdiction,
  });
}

/**
 * POST /regtech/travel-rule/transfers (the spec's body: originator {name, account}, beneficiary
 * {name, vasp_id}, amount, currency; jurisdiction optional, default FATF): records the parties for
 * the transfer and runs the same check.
 */
export interface TravelRuleTransferRequest {
  transfer_id: string;
  originator: { name: string; account?: string };
  beneficiary: { name: string; vasp_id?: string; account?: string };
  amount: string;
  currency: string;
  jurisdiction?: string;
}

export function recordTravelRuleTransfer(p: Principal, b: TravelRuleTransferRequest): Promise<TravelRuleCheck> {
  return runTravelRuleCheck({
    userId: p.userId,
    environment: p.environment,
    transferId: b.transfer_id,
    originator: { name: b.originator.name, account: b.originator.account },
    beneficiary: { name: b.beneficiary.name, vasp_id: b.beneficiary.vasp_id, account: b.beneficiary.account },
    amount: b.amount,
    currency: b.currency,
    jurisdiction: b.jurisdiction ?? 'FATF',
  });
}
