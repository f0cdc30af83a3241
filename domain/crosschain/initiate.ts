/**
 * Initiating a bridge transfer: the checks made before its workflow starts, spending the quote
 * and recording the transfer as pending (with its bridge.initiated event).
 */
import { validateAddress } from '../chains/addresses';
import { bookChain, type PayingCandidate } from '../chains/books';
import { custodyAddress } from '../chains/custody';
import { withTransaction, type Queryable } from '../db/pool';
import { DecimalMoney } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { toQuote, type QuoteRow } from './quotes';
import { bridgeWorkflowId, recordBridgeEvent, toTransfer, type BridgeTransfer, type TransferRow } from './transfers';

export interface InitiateInput {
  userId: string;
  environment: Environment;
  quoteId: string;
  accountId?: string | null;
  senderAddress?: string | null;
  recipientAddress?: string | null;
  slippageTolerance?: number;
  deadlineMinutes?: number;
  now: Date;
}

const SLIPPAGE_MAX = 0.5;

/**
 * The caller's active accounts that could pay (opening order; only `accountId` when given: another
 * user's is 404, one not active 422 ACCOUNT_<STATUS>), each with what it has for a new bridge: its
 * book's available balance less the bridges initiated from that book that their workflow has not
 * reserved yet, read in one statement (one snapshot: a reservation committing meanwhile is counted
 * once). The accounts are locked first, in one order, so concurrent initiations are judged one
 * after another: together they never promise more than the book holds (the workflow reserves later).
 */
async function fundingCandidates(
  c: Queryable,
  input: { userId: string; environment: Environment; accountId: string | null; assetCode: string; chain: string },
): Promise<PayingCandidate[]> {
  const book = bookChain(input.assetCode, input.chain);
  // Its own statement: the read below then starts after the lock is held, and sees what the
  // initiation that held it before committed (a statement's snapshot predates its lock waits).
  await c.query('SELECT 1 FROM accounts WHERE user_id = $1 AND environment = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id FOR UPDATE', [input.userId, input.environment, input.accountId]);
  const { rows } = await c.query<{ id: string; status: string; available: string }>(
    `SELECT a.id, a.status,
            (coalesce((ledger_balance_json(la)->>'available_balance')::numeric, 0)
              - coalesce((SELECT sum(b.amount) FROM bridge_transfers b
                           WHERE b.account_id = a.id AND b.asset_code = $4 AND b.source_chain = $6 AND b.status = 'pending' AND b.reservation_entry_id IS NULL), 0))::text AS available
       FROM accounts a LEFT JOIN ledger_accounts la ON la.account_id = a.id AND la.asset_code = $4 AND la.chain = $5
      WHERE a.user_id = $1 AND a.environment = $2 AND ($3::text IS NULL OR a.id = $3)
      ORDER BY a.created_at, a.id`,
    [input.userId, input.environment, input.accountId, input.assetCode, book, input.chain],
  );
  if (input.accountId) {
    if (!rows[0]) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
    if (rows[0].status !== 'active') throw new DomainError(`ACCOUNT_${rows[0].status.toUpperCase()}`, `The account is ${rows[0].status}`, '/account_id');
  }
  return rows.filter((r) => r.status === 'active').map((r) => ({ accountId: r.id, available: r.available }));
}

/**
 * Spends the quote (once) and records the transfer as pending. Which account pays: account_id
 * when given (the caller's, else 404), otherwise the caller's oldest active account whose book
 * of the token on the source chain has the amount available. Addresses default to the account's
 * custodial address on each chain. The caller starts the workflow.
 */
export async function initiateBridgeTransfer(input: InitiateInput): Promise<BridgeTransfer> {
  const slippage = input.slippageTolerance ?? 0.005;
  if (typeof slippage !== 'number' || !Number.isFinite(slippage) || slippage < 0 || slippage > SLIPPAGE_MAX) {
    throw new DomainError('INVALID_SLIPPAGE', `slippage_tolerance must be a fraction between 0 and ${SLIPPAGE_MAX}`, '/slippage_tolerance');
  }
  return withTransaction(async (c) => {
    const { rows: qr } = await c.query<QuoteRow>(
      'SELECT q.*, a.precision FROM bridge_quotes q JOIN assets a ON a.code = q.asset_code WHERE q.id = $1 FOR UPDATE OF q',
      [input.quoteId],
    );
    // Another user's quote does not exist for the caller.
    if (!qr[0] || qr[0].user_id !== input.userId || qr[0].environment !== input.environment) {
      throw new DomainError('QUOTE_NOT_FOUND', `quote ${input.quoteId} not found`, '/quote_id');
    }
    const q = toQuote(qr[0]);
    if (q.usedAt) throw new DomainError('QUOTE_ALREADY_USED', `quote ${q.id} was already used`, '/quote_id');
    if (q.expiresAt.getTime() <= input.now.getTime()) throw new DomainError('QUOTE_EXPIRED', `quote ${q.id} expired at ${q.expiresAt.toISOString()}`, '/quote_id');
    const deadlineMinutes = input.deadlineMinutes ?? Math.max(60, Math.ceil((q.estimatedDurationSeconds * 3) / 60));
    if (!Number.isInteger(deadlineMinutes) || deadlineMinutes < 1 || deadlineMinutes > 7 * 24 * 60) {
      throw new DomainError('INVALID_DEADLINE', 'deadline_minutes must be an integer from 1 to 10080', '/deadline_minutes');
    }
    if (deadlineMinutes * 60 < q.estimatedDurationSeconds) {
      throw new DomainError('DEADLINE_TOO_SHORT', `${q.protocol} needs about ${q.estimatedDurationSeconds} s on this route; deadline_minutes is shorter`, '/deadline_minutes');
    }

    const candidates = await fundingCandidates(c, { userId: input.userId, environment: input.environment, accountId: input.accountId ?? null, assetCode: q.assetCode, chain: q.sourceChain });
    const funded = candidates.find((a) => new DecimalMoney(a.available ?? '0').gte(q.amount));
    if (!funded) {
      throw new DomainError('INSUFFICIENT_FUNDS',
        `${input.accountId ? `account ${input.accountId} does not hold` : 'no account of yours holds'} ${q.amount} ${q.token} available on ${q.sourceChain}`,
        '/amount',
      );
    }
    const accountId = funded.accountId;
    const sender = validateAddress(q.sourceChain, input.senderAddress ?? custodyAddress(accountId, q.sourceChain), '/sender_address');
    const recipient = validateAddress(q.destinationChain, input.recipientAddress ?? custodyAddress(accountId, q.destinationChain), '/recipient_address');

    const used = await c.query('UPDATE bridge_quotes SET used_at = $2 WHERE id = $1 AND used_at IS NULL', [q.id, input.now]);
    if (used.rowCount === 0) throw new DomainError('QUOTE_ALREADY_USED', `quote ${q.id} was already used`, '/quote_id');
    const precision = qr[0].precision;
    const minReceive = new DecimalMoney(q.receiveAmount).times(new DecimalMoney(1).minus(slippage)).toDecimalPlaces(precision, DecimalMoney.ROUND_DOWN).toFixed(precision);
    const id = newId('btx');
    const { rows } = await c.query<TransferRow>(
      `WITH t AS (
         INSERT INTO bridge_transfers (id, environment, user_id, account_id, quote_id, protocol, source_chain, destination_chain, token, destination_token, asset_code,
                                       amount, fee_amount, receive_amount, min_receive_amount, slippage_tolerance, sender_address, recipient_address, status,
                                       workflow_id, deadline_at, estimated_completion_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'pending', $19, $20, $21, $22, $22) RETURNING *)
       SELECT t.*, a.precision FROM t JOIN assets a ON a.code = t.asset_code`,
      [
        id,
        input.environment,
        input.userId,
        accountId,
        q.id,
        q.protocol,
        q.sourceChain,
        q.destinationChain,
        q.token,
        q.destinationToken,
        q.assetCode,
        q.amount,
        q.feeAmount,
        q.receiveAmount,
        minReceive,
        slippage,
        sender,
        recipient,
        bridgeWorkflowId(id),
        new Date(input.now.getTime() + deadlineMinutes * 60_000),
        new Date(input.now.getTime() + q.estimatedDurationSeconds * 1000),
        input.now,
      ],
    );
    const t = toTransfer(rows[0]);
    await recordBridgeEvent(c, t, 'pending', { quote_id: q.id, account_id: accountId, deadline_minutes: deadlineMinutes });
    return t;
  });
}
