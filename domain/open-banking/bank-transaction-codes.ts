/**
 * ISO 20022 bank transaction codes (Domain-Family-SubFamily, the ExternalBankTransaction code
 * sets) of the lines in a Berlin Group transaction report: the one table of the platform
 * (docs/open-banking.md, "Bank transaction codes"). The code follows what posted the line's entry
 * (its type, and the rail of a rail payment), not the line's customer-facing type alone: a SEPA
 * credit transfer out and cash paid out at a teller's counter are both "withdrawal" lines, but
 * PMNT-ICDT-ESCT and PMNT-CNTR-CWDL to a bank statement reader.
 */
import type { RailName } from '../rails/calendar';
import type { EntryOrigin, TransactionType } from '../ledger/transactions';

/** A code per direction on the customer's account. */
interface Codes {
  /** Money out of the account. */
  out: string;
  /** Money into the account. */
  in: string;
}
const both = (code: string): Codes => ({ out: code, in: code });

const creditTransfer = (subFamily: string): Codes => ({ out: `PMNT-ICDT-${subFamily}`, in: `PMNT-RCDT-${subFamily}` });

/**
 * Rail payments (entries whose metadata names the rail: the reservation of activities/rails is a
 * credit transfer the customer issued; a rail credit received would be the RCDT side). SEPA
 * Instant is reported as a SEPA credit transfer (ESCT): the external code set has no SCT Inst
 * sub-family.
 */
export const RAIL_CODES: Readonly<Record<RailName, Codes>> = {
  sepa_ct: creditTransfer('ESCT'),
  sepa_instant: creditTransfer('ESCT'),
  swift: creditTransfer('XBCT'),
  ach_standard: creditTransfer('ACDT'),
  ach_same_day: creditTransfer('ACDT'),
  fedwire: creditTransfer('DMCT'),
  rtp: creditTransfer('DMCT'),
  fednow: creditTransfer('DMCT'),
};

/** By the entry's type (journal_entries.type), for entries that are not rail payments. */
export const ENTRY_CODES: Readonly<Record<string, Codes>> = {
  // Cash over a teller's counter (domain/microfinance/teller): the only cash the platform handles.
  mf_teller_deposit: both('PMNT-CNTR-CDPT'),
  mf_teller_withdrawal: both('PMNT-CNTR-CWDL'),
  // POST …/deposit and …/withdraw (domain/cash): money from or to outside the platform, settled by
  // an operator's confirmation; the means (transfer, card, cash) is not recorded, so no family claims it.
  deposit: { out: 'PMNT-MDOP-OTHR', in: 'PMNT-MCOP-OTHR' },
  withdrawal: { out: 'PMNT-MDOP-OTHR', in: 'PMNT-MCOP-OTHR' },
  // Between two accounts of the platform (transfers, also to another customer; P2P mobile
  // payments; a group's guarantee fund returned to its members): internal book transfers.
  transfer: creditTransfer('BOOK'),
  mf_guarantee_return: creditTransfer('BOOK'),
  // Microfinance loans: the drawdown paid to the borrower, repayments by the borrower or, under
  // joint liability, by the group's members.
  mf_disbursement: both('LDAS-CSLN-DDWN'),
  mf_repayment: both('LDAS-CSLN-PPAY'),
  mf_joint_liability: both('LDAS-CSLN-PPAY'),
  // Charges (a fee entry; fee lines inside other entries are caught by their line type).
  fee: both('ACMT-MDOP-CHRG'),
  // A currency position exchanged for another asset at the current price (the fiat leg).
  swap: both('FORX-SPOT-OTHR'),
  basket_buy: both('FORX-SPOT-OTHR'),
  basket_compose: both('FORX-SPOT-OTHR'),
  basket_decompose: both('FORX-SPOT-OTHR'),
};

/** An Interledger payment leaves or arrives through a connector, no ISO family of its own. */
const INTERLEDGER: Codes = creditTransfer('OTHR');
/** A reversal returns a credit transfer: money back in undoes one issued, money out one received. */
const REVERSAL: Codes = { out: 'PMNT-RCDT-RRTN', in: 'PMNT-ICDT-RRTN' };
/** Anything else (an operator's manual entry, an entry type added later): miscellaneous. */
const OTHER: Codes = { out: 'PMNT-MDOP-OTHR', in: 'PMNT-MCOP-OTHR' };
const CHARGES = 'ACMT-MDOP-CHRG';

/** The code of one line: its type, the direction it moves money, and what posted its entry. */
export function bankTransactionCode(line: { type: TransactionType; incoming: boolean }, origin: EntryOrigin | undefined): string {
  if (line.type === 'fee') return CHARGES;
  const side = line.incoming ? 'in' : 'out';
  if (!origin) return OTHER[side];
  if (origin.type === 'reversal' || line.type === 'reversal') return REVERSAL[side];
  if (origin.rail && origin.rail in RAIL_CODES) return RAIL_CODES[origin.rail as RailName][side];
  if (origin.interledger) return INTERLEDGER[side];
  return (ENTRY_CODES[origin.type] ?? OTHER)[side];
}
