/**
 * The outcome of a poll (a pure rule, decimals only):
 *
 * - participation = (for + against + abstain) / eligible power; below the quorum the poll is
 *   defeated and changes nothing. No eligible power at all (nobody held units at the snapshot) is
 *   defeated too: there was nobody to decide.
 * - approval = for / (for + against); the proposal succeeds only when it EXCEEDS the threshold, so
 *   a tie at the default 0.5 is defeated. Abstentions count towards the quorum only; a poll where
 *   everyone abstained is defeated.
 */
import { DecimalMoney as D } from '../money/amount';

export type Outcome = 'passed' | 'quorum_not_met' | 'threshold_not_met' | 'no_eligible_power';

export interface Tallies {
  for: string;
  against: string;
  abstain: string;
}

export interface Decision {
  status: 'succeeded' | 'defeated';
  outcome: Outcome;
  /** Fraction of the eligible power that voted (10 decimals, rounded down); null with no eligible power. */
  participation: string | null;
  /** for / (for + against), 10 decimals rounded down; null when nobody voted for or against. */
  approval: string | null;
  quorumReached: boolean;
}

const PLACES = 10;

export function participationOf(t: Tallies, eligible: string | null): string | null {
  if (eligible === null || new D(eligible).lte(0)) return null;
  const total = new D(t.for).plus(t.against).plus(t.abstain);
  return total.div(eligible).toDecimalPlaces(PLACES, D.ROUND_DOWN).toFixed();
}

export function approvalOf(t: Tallies): string | null {
  const decisive = new D(t.for).plus(t.against);
  return decisive.isZero() ? null : new D(t.for).div(decisive).toDecimalPlaces(PLACES, D.ROUND_DOWN).toFixed();
}

export function decide(t: Tallies, eligible: string, quorum: string, threshold: string): Decision {
  const participation = participationOf(t, eligible);
  const approval = approvalOf(t);
  if (participation === null) return { status: 'defeated', outcome: 'no_eligible_power', participation, approval, quorumReached: false };
  // Compared exactly (not the rounded figures), so 0.1 of the power at quorum 0.1 is enough.
  const total = new D(t.for).plus(t.against).plus(t.abstain);
  const quorumReached = total.gte(new D(eligible).times(quorum));
  if (!quorumReached) return { status: 'defeated', outcome: 'quorum_not_met', participation, approval, quorumReached };
  const decisive = new D(t.for).plus(t.against);
  const passed = decisive.gt(0) && new D(t.for).gt(decisive.times(threshold));
  return { status: passed ? 'succeeded' : 'defeated', outcome: passed ? 'passed' : 'threshold_not_met', participation, approval, quorumReached };
}
