/**
 * Receipts of succeeded payment intents and completed P2P transfers. A receipt is a view of the
 * posted record and its ledger entry, not a row of its own: it cannot disagree with the money, and
 * there is nothing to write half. Its id is rcpt_ + the source id; its number is derived from the
 * source id. Visible to the payer and the payee only (anyone else: 404). Rendered as JSON and as a
 * printable HTML page.
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { getEntry } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import { DomainError } from '../platform/errors';
import { getPaymentIntent } from './intents';
import { getP2pTransfer } from './p2p';

export interface Receipt {
  id: string;
  number: string;
  kind: 'payment_intent' | 'p2p_transfer';
  sourceId: string;
  issuedAt: Date;
  payer: { userId: string; name: string; accountId: string | null };
  payee: { userId: string; name: string; accountId: string | null };
  amount: string;
  fee: string;
  total: string;
  currency: string;
  description: string | null;
  entryId: string;
  ledgerLines: Array<{ account_id: string; direction: string; amount: string }>;
}

const notFound = () => new DomainError('RECEIPT_NOT_FOUND', 'Receipt not found');

export const receiptIdFor = (sourceId: string) => `rcpt_${sourceId}`;
const numberFor = (sourceId: string) => `RCPT-${sourceId.replace(/^[a-z]+_/, '').slice(0, 12).toUpperCase()}`;

export async function getReceipt(p: Principal, id: string): Promise<Receipt> {
  const source = id.startsWith('rcpt_') ? id.slice(5) : '';
  let r: Omit<Receipt, 'ledgerLines' | 'id' | 'number'>;
  if (source.startsWith('pi_')) {
    const i = await getPaymentIntent(p, source).catch(() => null);
    if (!i || i.status !== 'succeeded' || !i.entryId) throw notFound();
    const { rows } = await getPool().query<{ name: string }>('SELECT name FROM users WHERE id = $1', [i.userId]);
    const mine = i.userId === p.userId;
    r = {
      kind: 'payment_intent',
      sourceId: i.id,
      issuedAt: i.succeededAt!,
      payer: { userId: i.userId, name: rows[0]?.name ?? '', accountId: mine ? i.payerAccountId : null },
      payee: { userId: i.payeeUserId, name: i.payeeName, accountId: mine ? null : i.payeeAccountId },
      amount: i.amount,
      fee: i.feeAmount ?? '0',
      total: new D(i.amount).plus(i.feeAmount ?? '0').toFixed(),
      currency: i.currency,
      description: i.description,
      entryId: i.entryId,
    };
  } else if (source.startsWith('txfr_')) {
    const x = await getP2pTransfer(p, source).catch(() => null);
    if (!x || x.transfer.status !== 'completed' || !x.transfer.entryId) throw notFound();
    const t = x.transfer;
    const mine = x.direction === 'sent';
    r = {
      kind: 'p2p_transfer',
      sourceId: t.id,
      issuedAt: t.completedAt ?? t.createdAt,
      payer: { userId: x.senderUserId, name: x.senderName, accountId: mine ? t.fromAccountId : null },
      payee: { userId: x.recipientUserId, name: x.recipientName, accountId: mine ? null : t.toAccountId },
      amount: t.amount,
      fee: t.feeAmount,
      total: new D(t.amount).plus(t.feeAmount).toFixed(),
      currency: t.assetCode,
      description: x.note,
      entryId: t.entryId!,
    };
  } else {
    throw notFound();
  }
  const entry = await getEntry(r.entryId);
  // The viewer sees the lines of their own side only (another customer's account ids stay private).
  const own = new Set([r.payer.accountId, r.payee.accountId].filter(Boolean));
  const { rows: las } = await getPool().query<{ id: string; account_id: string | null }>('SELECT id, account_id FROM ledger_accounts WHERE id = ANY($1)', [entry?.lines.map((l) => l.accountId) ?? []]);
  const accountOf = new Map(las.map((l) => [l.id, l.account_id]));
  const ledgerLines = (entry?.lines ?? [])
    .filter((l) => own.has(accountOf.get(l.accountId) ?? ''))
    .map((l) => ({ account_id: accountOf.get(l.accountId)!, direction: l.direction, amount: l.amount }));
  const places = (r.amount.split('.')[1] ?? '').length;
  return { ...r, id: receiptIdFor(r.sourceId), number: numberFor(r.sourceId), total: new D(r.total).toFixed(places), ledgerLines };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** A printable page of the receipt (every value escaped; no scripts, no outside resources). */
export function renderReceiptHtml(r: Receipt): string {
  const row = (k: string, v: string) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Receipt ${esc(r.number)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;color:#111}table{border-collapse:collapse;width:100%}th{text-align:left;color:#555;font-weight:normal;padding:.3rem 1rem .3rem 0}td{padding:.3rem 0}h1{font-size:1.3rem}</style>
</head><body>
<h1>Receipt ${esc(r.number)}</h1>
<table>
${row('Paid on', r.issuedAt.toISOString())}
${row('From', r.payer.name)}
${row('To', r.payee.name)}
${row('Amount', `${r.amount} ${r.currency}`)}
${row('Fee', `${r.fee} ${r.currency}`)}
${row('Total', `${r.total} ${r.currency}`)}
${r.description ? row('Description', r.description) : ''}
${row('Reference', r.sourceId)}
${row('Ledger entry', r.entryId)}
</table>
</body></html>
`;
}
