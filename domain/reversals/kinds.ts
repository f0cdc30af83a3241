/**
 * What a journal entry IS, decided from the records it belongs to (the transfers row, rail payment,
 * Interledger payment, swap, bridge, flash loan, deposit or withdrawal), not from anything a
 * client sends and not from the entry's type alone (Interledger payments post type 'transfer'
 * too). Only two kinds stayed inside the platform's ledger and can be reversed: internal
 * transfers and operators' manual entries. Anything else, including an entry no known process
 * made, is refused (deny by default); docs/ledger.md "Reversals".
 */
import { getPool, type Queryable } from '../db/pool';
import type { Entry } from '../ledger';
import { RAILS, type RailName } from '../rails/calendar';

export type ReversibleKind =
  | { kind: 'internal_transfer'; transferId: string; fromAccountId: string; toAccountId: string }
  | { kind: 'manual' };

export type EntryKind =
  | ReversibleKind
  | { kind: 'deposit' | 'withdrawal' | 'interledger' | 'swap' | 'bridge' | 'crosschain_swap' | 'flash_loan' | 'basket' | 'unknown' }
  | { kind: 'rail_payment'; rail: RailName | null };

/** Markers the platform's own code writes into an entry's metadata, naming the record it belongs to. */
const EXTERNAL_MARKERS = ['rail_payment_id', 'ilp_payment_id', 'swap_id', 'bridge_tx_id', 'flash_loan_id', 'crosschain_swap_id'] as const;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export async function classifyEntry(entry: Entry, client: Queryable = getPool()): Promise<EntryKind> {
  const m = entry.metadata ?? {};
  // Rails first: an outgoing rail payment's entry is typed 'withdrawal' (its customer line too).
  const railPaymentId = str(m.rail_payment_id);
  if (railPaymentId) {
    const { rows } = await client.query<{ rail: RailName }>(
      'SELECT rail FROM rail_payments WHERE id = $1 AND (reservation_entry_id = $2 OR reversal_entry_id = $2)',
      [railPaymentId, entry.id],
    );
    return { kind: 'rail_payment', rail: rows[0]?.rail ?? null };
  }
  if (str(m.ilp_payment_id)) return { kind: 'interledger' };
  if (str(m.crosschain_swap_id)) return { kind: 'crosschain_swap' };
  if (str(m.swap_id) || entry.type === 'swap') return { kind: 'swap' };
  if (str(m.bridge_tx_id) || entry.type === 'bridge') return { kind: 'bridge' };
  if (str(m.flash_loan_id) || entry.type === 'flash_loan') return { kind: 'flash_loan' };
  // Compose, decompose, buying basket units and rebalancing (domain/baskets, domain/governance).
  if (entry.type.startsWith('basket_')) return { kind: 'basket' };

  const transferId = str(m.transfer_id);
  if (transferId && entry.type === 'transfer') {
    // The transfers row must name this very entry as its own; its fee lines are part of it.
    const { rows } = await client.query<{ from_account_id: string; to_account_id: string }>(
      'SELECT from_account_id, to_account_id FROM transfers WHERE id = $1 AND entry_id = $2 AND environment = $3',
      [transferId, entry.id, entry.environment],
    );
    const t = rows[0];
    // Every customer line is one of the two parties' (the rest is the fee revenue account).
    if (t && entry.lines.every((l) => l.customerAccountId === null || l.customerAccountId === t.from_account_id || l.customerAccountId === t.to_account_id)) {
      return { kind: 'internal_transfer', transferId, fromAccountId: t.from_account_id, toAccountId: t.to_account_id };
    }
    return { kind: 'unknown' };
  }

  // Deposits and withdrawals (domain/cash) record how they settle.
  if ((entry.type === 'deposit' || entry.type === 'withdrawal') && (m.settlement === 'sandbox_instant' || m.settlement === 'awaiting_confirmation')) {
    return { kind: entry.type };
  }
  // An operator's manual entry (POST /api/v1/ledger/entries) carries exactly who posted it.
  const keys = Object.keys(m);
  if (keys.length === 1 && str(m.posted_by) && !EXTERNAL_MARKERS.some((k) => k in m)) return { kind: 'manual' };
  return { kind: 'unknown' };
}

export function isReversible(k: EntryKind): k is ReversibleKind {
  return k.kind === 'internal_transfer' || k.kind === 'manual';
}

/** Why a kind is not reversible, naming the process that does undo it. */
export function notReversibleReason(k: EntryKind): string {
  const tail = ' Operators correct an erroneous posting with a balanced manual ledger entry, not with a reversal.';
  switch (k.kind) {
    case 'deposit':
      return 'A deposit brought money in from outside the platform and cannot be reversed; to send it back, make a withdrawal.' + tail;
    case 'withdrawal':
      return 'A withdrawal paid money out of the platform and cannot be reversed; money comes back only as a new deposit from a real inbound movement.' + tail;
    case 'rail_payment': {
      const name = k.rail ? RAILS[k.rail].display_name : 'payment rail';
      const ach = k.rail === 'ach_standard' || k.rail === 'ach_same_day';
      return (
        `This ${name} payment left the platform and cannot be reversed; it is undone only by the rail's return process ` +
        (ach ? '(an ACH return from the receiving bank).' : '(a pacs.004 payment return, e.g. after a camt.056 recall request).') +
        tail
      );
    }
    case 'interledger':
      return 'This Interledger payment was delivered to another wallet and cannot be reversed; the receiver must send the money back as a new Interledger payment.' + tail;
    case 'swap':
      return 'This DEX swap was executed on-chain and cannot be reversed; swap back with a new swap.' + tail;
    case 'bridge':
      return "This bridge transfer moved tokens to another chain and cannot be reversed; it is undone only by the bridge's refund or a bridge transfer back." + tail;
    case 'crosschain_swap':
      return 'This cross-chain swap ran on-chain and cannot be reversed; it is undone only by its chain refund (bridging back) or a new cross-chain swap.' + tail;
    case 'basket':
      return 'This basket operation moved assets through the basket reserve and cannot be reversed; undo it with the opposite operation (decompose basket units, or compose them again).' + tail;
    case 'flash_loan':
      return 'This flash loan was borrowed and repaid atomically on-chain and cannot be reversed.' + tail;
    default:
      return 'This transaction is not an internal movement of the platform\'s ledger and cannot be reversed.' + tail;
  }
}
