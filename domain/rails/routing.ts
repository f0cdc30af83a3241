/**
 * Rail selection for `rail: auto`: which rails can reach the creditor (IBAN -> SEPA/SWIFT, US
 * routing number -> ACH/Fedwire/RTP/FedNow, narrowed by the sandbox reachability table), which
 * accept the currency and amount, then urgency, cut-offs and price. Pure (takes `now`).
 */
import { compareAmounts } from '../money/amount';
import { isValidRoutingNumber } from '../ach/nacha';
import { DomainError } from '../platform/errors';
import { planExecution, RAILS, zoned, type RailName } from './calendar';

export type Urgency = 'standard' | 'same_day' | 'instant';

export interface CreditorAccount {
  name: string;
  iban?: string;
  account_number?: string;
  routing_number?: string;
  bic?: string;
  country?: string;
  account_type?: 'checking' | 'savings';
}

/** SEPA scheme countries (EEA + CH, GB, MC, SM, AD, VA and the Channel Islands / Isle of Man). */
export const SEPA_COUNTRIES = new Set(
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IS IE IT LV LI LT LU MT NL NO PL PT RO SK SI ES SE CH GB MC SM AD VA GI GG JE IM'.split(' '),
);

/**
 * Sandbox reachability of instant rails by the first four digits of the routing number (the
 * Federal Reserve district and office). Every valid routing number reaches ACH and Fedwire.
 */
export const SANDBOX_INSTANT_REACHABILITY: Readonly<Record<string, Array<'rtp' | 'fednow'>>> = {
  '0210': ['rtp', 'fednow'],
  '0260': ['rtp', 'fednow'],
  '1110': ['rtp', 'fednow'],
  '1210': ['rtp'],
  '1220': ['rtp'],
  '0110': ['fednow'],
  '0710': ['fednow'],
  '1234': ['rtp', 'fednow'],
};
/** BIC prefixes (bank code) whose banks are not SCT Inst participants in the sandbox. */
export const SANDBOX_NO_SCT_INST_BICS = ['NOINDEFF', 'SLOWDEFF'];

export interface RoutingDecision {
  rail: RailName;
  reason: string;
  alternatives: Array<{ rail: RailName; eligible: boolean; reason: string; cost: string; expected_settlement_at: string | null }>;
}

const iso = (d: Date) => d.toISOString();

export function reachableRails(c: CreditorAccount): { rails: RailName[]; why: string } {
  if (c.iban) {
    const country = c.iban.slice(0, 2).toUpperCase();
    const rails: RailName[] = [];
    if (SEPA_COUNTRIES.has(country)) {
      rails.push('sepa_ct');
      const bank = (c.bic ?? '').toUpperCase();
      if (!SANDBOX_NO_SCT_INST_BICS.some((p) => bank.startsWith(p))) rails.push('sepa_instant');
    }
    rails.push('swift');
    return { rails, why: SEPA_COUNTRIES.has(country) ? `IBAN in SEPA country ${country}` : `IBAN in non-SEPA country ${country}` };
  }
  if (c.routing_number) {
    const instant = SANDBOX_INSTANT_REACHABILITY[c.routing_number.slice(0, 4)] ?? [];
    return { rails: ['ach_standard', 'ach_same_day', 'fedwire', ...instant], why: `US routing number ${c.routing_number} (instant: ${instant.join(', ') || 'none'})` };
  }
  if (c.bic) return { rails: ['swift'], why: `BIC ${c.bic}` };
  return { rails: [], why: 'no account identifier' };
}

/** Checks the creditor account's identifiers (IBAN mod-97, ABA check digit, BIC shape). */
export function validateCreditor(c: CreditorAccount): void {
  const err = (code: string, msg: string, field: string) => new DomainError(code, msg, `/creditor_account/${field}`);
  if (!c.iban && !(c.account_number && c.routing_number)) {
    throw err('CREDITOR_ACCOUNT_REQUIRED', 'creditor_account needs an iban, or account_number and routing_number', 'iban');
  }
  if (c.iban && (c.account_number || c.routing_number)) throw err('AMBIGUOUS_CREDITOR_ACCOUNT', 'give either an iban or account_number + routing_number', 'iban');
  if (c.iban && !ibanValid(c.iban)) throw err('INVALID_IBAN', `${c.iban} is not a valid IBAN (mod 97)`, 'iban');
  if (c.routing_number && !isValidRoutingNumber(c.routing_number)) throw err('INVALID_ROUTING_NUMBER', `${c.routing_number} fails the ABA check digit`, 'routing_number');
  if (c.bic && !/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(c.bic)) throw err('INVALID_BIC', `${c.bic} is not a BIC`, 'bic');
}

export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) rem = (rem * 10 + parseInt(d, 10)) % 97;
  }
  return rem === 1;
}

/** Why `rail` can or cannot carry this payment (currency, limits, reachability). */
function eligibility(rail: RailName, amount: string, currency: string, reachable: RailName[]): string | null {
  const def = RAILS[rail];
  if (!reachable.includes(rail)) return 'creditor not reachable on this rail';
  if (!def.currencies.includes(currency)) return `does not carry ${currency}`;
  if (compareAmounts(amount, def.max_amount) > 0) return `amount above the ${def.max_amount} ${def.currencies[0]} limit`;
  if (compareAmounts(amount, def.min_amount) < 0) return `amount below ${def.min_amount}`;
  return null;
}

/** Rejects an explicitly chosen rail that cannot take the payment (422 with the rule). */
export function checkExplicitRail(rail: RailName, amount: string, currency: string, c: CreditorAccount): void {
  const why = eligibility(rail, amount, currency, reachableRails(c).rails);
  if (why) throw new DomainError('RAIL_NOT_ELIGIBLE', `${RAILS[rail].display_name}: ${why}`, '/rail');
}

/**
 * auto: instant urgency takes the cheapest instant rail; same_day the earliest settlement
 * (instant, same-day ACH before its cut-off, Fedwire); standard the cheapest rail. Ties go to
 * the earlier settlement.
 */
export function chooseRail(input: { amount: string; currency: string; creditor: CreditorAccount; urgency: Urgency; now: Date }): RoutingDecision {
  const { rails: reachable, why } = reachableRails(input.creditor);
  const alternatives: RoutingDecision['alternatives'] = [];
  const eligible: Array<{ rail: RailName; settle: Date; cost: string }> = [];
  for (const rail of Object.keys(RAILS) as RailName[]) {
    const bad = eligibility(rail, input.amount, input.currency, reachable);
    if (bad && !reachable.includes(rail)) continue;
    const plan = bad ? null : planExecution(rail, input.now, input.currency);
    alternatives.push({ rail, eligible: !bad, reason: bad ?? `settles ${plan!.settleAt.toISOString()}`, cost: RAILS[rail].cost, expected_settlement_at: plan ? iso(plan.settleAt) : null });
    if (!bad) eligible.push({ rail, settle: plan!.settleAt, cost: RAILS[rail].cost });
  }
  if (eligible.length === 0) {
    throw new DomainError('NO_ELIGIBLE_RAIL', `No rail can carry ${input.amount} ${input.currency} to this creditor (${why})`, '/creditor_account');
  }
  const byCost = (a: (typeof eligible)[number], b: (typeof eligible)[number]) => compareAmounts(a.cost, b.cost) || a.settle.getTime() - b.settle.getTime();
  const bySpeed = (a: (typeof eligible)[number], b: (typeof eligible)[number]) => a.settle.getTime() - b.settle.getTime() || compareAmounts(a.cost, b.cost);
  let pick: (typeof eligible)[number];
  let reason: string;
  const instant = eligible.filter((e) => RAILS[e.rail].settlement_speed === 'instant');
  if (input.urgency === 'instant') {
    if (instant.length) {
      pick = [...instant].sort(byCost)[0];
      reason = `urgency instant: cheapest instant rail reachable for ${why} within its limit`;
    } else {
      pick = [...eligible].sort(bySpeed)[0];
      reason = `urgency instant but no instant rail reaches ${why} for this amount: fastest settlement instead`;
    }
  } else if (input.urgency === 'same_day') {
    // "Same day" in the rail's own calendar: a window already past its cut-off does not count.
    const today = (e: (typeof eligible)[number]) => (zoned(e.settle, RAILS[e.rail].time_zone).date === zoned(input.now, RAILS[e.rail].time_zone).date ? 0 : 1);
    pick = [...eligible].sort((a, b) => today(a) - today(b) || byCost(a, b))[0];
    reason = `urgency same_day: cheapest rail settling the same day (${why}), settles ${pick.settle.toISOString()}`;
  } else {
    pick = [...eligible].sort(byCost)[0];
    reason = `urgency standard: cheapest eligible rail for ${input.amount} ${input.currency} (${why}), settles ${pick.settle.toISOString()}`;
  }
  return { rail: pick.rail, reason, alternatives: alternatives.filter((a) => a.rail !== pick.rail) };
}
