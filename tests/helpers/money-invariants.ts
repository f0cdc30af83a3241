// The money invariants live in domain/ledger/invariants.ts (the chaos script uses them too).
export { checkMoneyInvariants, checkMoneyInvariantsAt, RESERVATION_LINKS } from '../../domain/ledger/invariants';
