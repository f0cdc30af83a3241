/**
 * The payment core behind every HTTP-native payment (SMS, monetized endpoints, MCP tools): verify an
 * EIP-3009 authorization against the stated terms, claim its nonce, hold it to the payer's and the
 * agent's spending limits, and settle it in one balanced ledger entry keyed by the authorization.
 *
 * Sandbox: the facilitator is the ledger itself. The payer's wallet is registered to a customer
 * account (domain/x402/wallets.ts) and its USDC book of the network's chain is debited; the
 * platform's fee revenue is credited; the claim, the limits and the entry commit in one
 * transaction, so a refusal (funds, limits, a replayed nonce) leaves nothing behind.
 * Production: the payer's USDC is on chain. The nonce and budget are claimed ('settling'), the x402
 * facilitator verifies and settles (domain/x402/facilitator.ts), and only a settlement it reports
 * posts the entry: the settlement account (money that arrived on chain) to fee revenue. A /settle
 * that gives no answer leaves the payment 'settling' (503 PAYMENT_SETTLEMENT_PENDING) for the
 * reconciliation to decide from the chain (domain/x402/reconcile.ts).
 */
import { getAddress, keccak256, toHex } from 'viem';
import { withTransaction, getPool, type Queryable } from '../db/pool';
import { entryPayload, LedgerError, reverseEntry, systemAccount, toLedgerError } from '../ledger';
import { bookChain, ensureChainLedgerAccount } from '../chains/books';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { verifyAuthorization, type PaymentTerms, type SignedAuthorization } from './authorization';
import { facilitatorFor } from './facilitator';
import { holdToLimits, limitLockKeys } from './limits';
import { atomicToUsdc } from './amounts';
import { PAYMENT_COLUMNS as COLUMNS, type PaymentPurpose, type X402Payment } from './payment-record';

export type { PaymentPurpose, PaymentStatus, X402Payment } from './payment-record';

export interface PaymentContext {
  environment: Environment;
  purpose: PaymentPurpose;
  /** What was paid for: the request path, or sms:<message id>. */
  resource: string;
  endpointId?: string | null;
  /** The API key that made the call when it is tagged as an agent: its budget applies too. */
  agentKeyId?: string | null;
  /** Runs inside the settlement's transaction, so what was paid for is recorded with the payment or not at all. */
  onSettled?: (c: Queryable, payment: X402Payment) => Promise<void>;
}

/** The ledger key of an authorization: the same one always names the same entry. */
export const authorizationKey = (network: string, asset: string, payer: string, nonce: string) => `x402:${network}:${asset.toLowerCase()}:${payer.toLowerCase()}:${nonce.toLowerCase()}`;

interface Wallet {
  userId: string;
  accountId: string;
  accountStatus: string;
}

async function walletOf(c: Queryable, environment: Environment, payer: string): Promise<Wallet | null> {
  const { rows } = await c.query<Wallet>(
    `SELECT w.user_id AS "userId", w.account_id AS "accountId", a.status AS "accountStatus"
       FROM x402_wallets w JOIN accounts a ON a.id = w.account_id WHERE w.environment = $1 AND w.address = $2`,
    [environment, payer.toLowerCase()],
  );
  return rows[0] ?? null;
}

const CLAIM_COLUMNS = `id, environment, network, asset, payer, pay_to, amount, nonce, valid_before, purpose, resource, endpoint_id, agent_key_id, payer_user_id, payer_account_id, status`;

function claimValues(id: string, signed: SignedAuthorization, terms: PaymentTerms, ctx: PaymentContext, payer: string): unknown[] {
  const a = signed.authorization;
  return [id, ctx.environment, terms.network.network, terms.asset.address.toLowerCase(), payer.toLowerCase(), a.to.toLowerCase(), a.value, a.nonce.toLowerCase(), a.validBefore, ctx.purpose, ctx.resource, ctx.endpointId ?? null, ctx.agentKeyId ?? null];
}

const nonceUsed = () => new DomainError('PAYMENT_NONCE_USED', 'This authorization has already been presented (its nonce is used); sign a new one');

/** Claims the authorization's nonce: a second presentation of it (replay or concurrent double-submit) finds it taken. */
async function claim(c: Queryable, signed: SignedAuthorization, terms: PaymentTerms, ctx: PaymentContext, payer: string, wallet: Wallet | null): Promise<string> {
  const id = newId('x402pay');
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO x402_payments (${CLAIM_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9::numeric), $10, $11, $12, $13, $14, $15, 'settling')
     ON CONFLICT (environment, network, asset, payer, nonce) DO NOTHING RETURNING id`,
    [...claimValues(id, signed, terms, ctx, payer), wallet?.userId ?? null, wallet?.accountId ?? null],
  );
  if (!rows[0]) throw nonceUsed();
  return id;
}

/**
 * Sandbox: finds the payer's wallet, its account and USDC book on the network's chain, and claims
 * the nonce, in one statement (the hot path of every paid request). Refusals name what was missing.
 */
async function claimFromWallet(c: Queryable, signed: SignedAuthorization, terms: PaymentTerms, ctx: PaymentContext, payer: string): Promise<{ id: string; wallet: Wallet; book: string | null }> {
  const id = newId('x402pay');
  const { rows } = await c.query<Wallet & { book: string | null; claimed: string | null }>(
    `WITH w AS (
       SELECT w.user_id, w.account_id, a.status,
              (SELECT la.id FROM ledger_accounts la WHERE la.account_id = w.account_id AND la.asset_code = 'USDC' AND la.chain = $14) AS book
         FROM x402_wallets w JOIN accounts a ON a.id = w.account_id WHERE w.environment = $2 AND w.address = $5),
     ins AS (
       INSERT INTO x402_payments (${CLAIM_COLUMNS})
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9::numeric), $10, $11, $12, $13, w.user_id, w.account_id, 'settling' FROM w WHERE w.status = 'active'
       ON CONFLICT (environment, network, asset, payer, nonce) DO NOTHING RETURNING id),
     -- The spending-limit locks, held from here: the limits statement that follows reads after them.
     lk AS (SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) AS n FROM unnest($15::text[]) WITH ORDINALITY AS t(k, i))
     SELECT w.user_id AS "userId", w.account_id AS "accountId", w.status AS "accountStatus", w.book, (SELECT id FROM ins) AS claimed, (SELECT n FROM lk) AS locks FROM w`,
    [...claimValues(id, signed, terms, ctx, payer), bookChain('USDC', terms.network.bookChain), limitLockKeys({ environment: ctx.environment, payer, agentKeyId: ctx.agentKeyId ?? null })],
  );
  const w = rows[0];
  if (!w) throw new DomainError('PAYMENT_PAYER_UNKNOWN', `Wallet ${payer} is not registered to an account in the sandbox (POST /api/v2/x402/wallets)`);
  if (w.accountStatus !== 'active') throw new DomainError('PAYMENT_PAYER_ACCOUNT_INACTIVE', `The account behind wallet ${payer} is ${w.accountStatus}`);
  if (!w.claimed) throw nonceUsed();
  return { id, wallet: w, book: w.book };
}

/** A deterministic stand-in for the sandbox's settlement transaction hash. */
const sandboxTxHash = (key: string) => keccak256(toHex(`sandbox-settlement:${key}`));

/**
 * Verifies and settles a payment for `terms`; returns the settled payment. Refusals are DomainErrors
 * with PAYMENT_* codes (402) or SPENDING_LIMIT_EXCEEDED (402), and nothing is settled; production's
 * PAYMENT_SETTLEMENT_PENDING (503, details.payment_id) means the outcome is not known yet.
 */
export async function settlePayment(signed: SignedAuthorization, terms: PaymentTerms, ctx: PaymentContext): Promise<X402Payment> {
  const payer = await verifyAuthorization(signed, terms);
  const key = authorizationKey(terms.network.network, terms.asset.address, payer, signed.authorization.nonce);
  const usdc = atomicToUsdc(signed.authorization.value);
  if (ctx.environment === 'sandbox') {
    return withTransaction(async (c) => {
      const { id, wallet, book } = await claimFromWallet(c, signed, terms, ctx, payer);
      await holdToLimits(c, { environment: ctx.environment, payer, agentKeyId: ctx.agentKeyId ?? null, amount: usdc, paymentId: id, locked: true });
      const payerBook = book ?? (await ensureChainLedgerAccount(c, wallet.accountId, 'USDC', terms.network.bookChain));
      const revenue = await systemAccount(ctx.environment, 'USDC', 'fee_revenue', key, c);
      const entry = paymentEntry(ctx, key, id, payerBook, revenue, usdc, { payer, nonce: signed.authorization.nonce, network: terms.network.network }, wallet.userId);
      const settled = await postAndMarkSettled(c, id, entry, sandboxTxHash(key)).catch((err) => {
        const e = toLedgerError(err);
        if (e instanceof LedgerError && e.code === 'INSUFFICIENT_FUNDS') {
          throw new DomainError('PAYMENT_INSUFFICIENT_FUNDS', `Wallet ${payer} holds too little USDC on ${terms.network.name} for ${usdc} USDC`);
        }
        throw e;
      });
      await ctx.onSettled?.(c, settled);
      return settled;
    });
  }
  // Production: claim and budget first, so a concurrent double-submit never reaches the facilitator twice.
  const id = await withTransaction(async (c) => {
    const wallet = await walletOf(c, ctx.environment, payer);
    const claimed = await claim(c, signed, terms, ctx, payer, wallet);
    await holdToLimits(c, { environment: ctx.environment, payer, agentKeyId: ctx.agentKeyId ?? null, amount: usdc, paymentId: claimed });
    return claimed;
  });
  const outcome = await facilitatorFor(ctx.environment).settle(signed, terms);
  if (outcome.status === 'failed') {
    await getPool().query(`UPDATE x402_payments SET status = 'failed', failure_code = $2, failure_reason = $3, settle_attempted_at = $4 WHERE id = $1 AND status = 'settling'`, [
      id,
      outcome.code,
      outcome.reason,
      outcome.attemptedAt,
    ]);
    throw new DomainError(outcome.code, outcome.reason);
  }
  if (outcome.status === 'unknown') {
    // The facilitator may have submitted it: the nonce and budget stay held until the chain says (domain/x402/reconcile.ts).
    await getPool().query(
      `UPDATE x402_payments SET settle_attempted_at = $2, last_error = $3, transaction_hash = coalesce($4, transaction_hash) WHERE id = $1 AND status = 'settling'`,
      [id, outcome.attemptedAt, `Settlement outcome unknown: ${outcome.reason}`.slice(0, 1000), outcome.transaction],
    );
    throw settlementPending(id, outcome.reason);
  }
  const p = { id, environment: ctx.environment, network: terms.network.network, asset: terms.asset.address, payer, nonce: signed.authorization.nonce, amount: signed.authorization.value, purpose: ctx.purpose, resource: ctx.resource };
  try {
    return await withTransaction(async (c) => {
      const settled = await bookOnChainSettlement(c, p, outcome.transaction, outcome.attemptedAt);
      await ctx.onSettled?.(c, settled);
      return settled;
    });
  } catch (err) {
    // Settled on chain, not booked (the database failed us): the reconciliation books it, with this hash if it can be kept.
    const reason = `the facilitator settled it in ${outcome.transaction}, but it could not be booked: ${(err as Error).message}`;
    await getPool()
      .query(`UPDATE x402_payments SET settle_attempted_at = $2, last_error = $3, transaction_hash = $4 WHERE id = $1 AND status = 'settling'`, [id, outcome.attemptedAt, reason.slice(0, 1000), outcome.transaction])
      .catch(() => undefined);
    throw settlementPending(id, reason);
  }
}

/**
 * 503 PAYMENT_SETTLEMENT_PENDING: the payment was handed to the facilitator and no outcome came back
 * (or came back and could not be booked). Not a 402: paying again could pay twice. The id lets the
 * payer follow it (GET /api/v2/x402/payments).
 */
function settlementPending(id: string, reason: string): DomainError {
  return new DomainError(
    'PAYMENT_SETTLEMENT_PENDING',
    `Payment ${id} was handed to the facilitator and its outcome is not known yet (${reason}); it may have settled on chain. It stays pending until it is reconciled against the chain within minutes: do not pay again for this request; GET /api/v2/x402/payments shows its outcome`,
    undefined,
    { payment_id: id },
  );
}

/** What booking a production settlement needs to know about its payment (the row or the request). */
export interface OnChainPayment {
  id: string;
  environment: Environment;
  network: string;
  asset: string;
  payer: string;
  nonce: string;
  /** Atomic units. */
  amount: string;
  purpose: PaymentPurpose;
  resource: string;
}

/**
 * Production: books USDC that arrived on chain for the payment (settlement account → fee revenue)
 * and marks it settled, in the caller's transaction. Keyed by the authorization like every payment
 * entry, so the facilitator's answer and the reconciliation (domain/x402/reconcile.ts) that finds
 * the authorization used post one entry between them. `transaction` is null when only the chain's
 * state, not the transaction, is known.
 */
export async function bookOnChainSettlement(c: Queryable, p: OnChainPayment, transaction: string | null, attemptedAt: Date | null, facts: Record<string, string> = {}): Promise<X402Payment> {
  const key = authorizationKey(p.network, p.asset, p.payer, p.nonce);
  const settlement = await systemAccount(p.environment, 'USDC', 'settlement', key, c);
  const revenue = await systemAccount(p.environment, 'USDC', 'fee_revenue', key, c);
  const ctx = { environment: p.environment, purpose: p.purpose, resource: p.resource };
  const entry = paymentEntry(ctx, key, p.id, settlement, revenue, atomicToUsdc(p.amount), { payer: getAddress(p.payer), transaction: transaction ?? 'unknown', network: p.network, ...facts }, null);
  return postAndMarkSettled(c, p.id, entry, transaction, attemptedAt).catch((err) => {
    throw toLedgerError(err);
  });
}

/**
 * The payment's balanced entry: `from` (the payer's book, or the settlement account where money
 * arrived on chain) to fee revenue, keyed by the authorization. The payer's line shows as a fee.
 */
function paymentEntry(ctx: Pick<PaymentContext, 'environment' | 'purpose' | 'resource'>, key: string, id: string, from: string, revenue: string, usdc: string, facts: Record<string, string>, userId: string | null) {
  return entryPayload({
    environment: ctx.environment,
    idempotencyKey: key,
    type: 'x402_payment',
    description: `${ctx.purpose} payment for ${ctx.resource}`,
    reference: id,
    userId,
    lines: [
      { accountId: from, direction: 'debit', amount: usdc, transactionType: 'fee' },
      { accountId: revenue, direction: 'credit', amount: usdc },
    ],
    metadata: { x402_payment_id: id, purpose: ctx.purpose, ...facts },
  });
}

/** Posts the entry and marks the payment settled with it, in one statement (a hash already known is kept when none is given). */
async function postAndMarkSettled(c: Queryable, id: string, entry: Record<string, unknown>, txHash: string | null, attemptedAt: Date | null = null): Promise<X402Payment> {
  const { rows } = await c.query<X402Payment>(
    `WITH e AS (SELECT ledger_post_entry($2::jsonb) AS r)
     UPDATE x402_payments SET status = 'settled', entry_id = (SELECT r->>'id' FROM e), transaction_hash = coalesce($3, transaction_hash), settled_at = now(),
            settle_attempted_at = coalesce(settle_attempted_at, $4)
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, JSON.stringify(entry), txHash, attemptedAt],
  );
  return rows[0];
}

export async function getPayment(id: string, c: Queryable = getPool()): Promise<X402Payment | null> {
  const { rows } = await c.query<X402Payment>(`SELECT ${COLUMNS} FROM x402_payments WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/**
 * Gives a settled payment back (a paid SMS the operator refused, say): the reversal of its entry,
 * once. Sandbox: the USDC returns to the payer's book. Production: fee revenue goes back to the
 * settlement account, from which the on-chain refund to the payer is paid out. Idempotent: a
 * refunded payment is returned as it is.
 */
export async function refundPayment(id: string, reason: string, onRefunded?: (c: Queryable) => Promise<void>): Promise<X402Payment> {
  return withTransaction(async (c) => {
    const { rows } = await c.query<X402Payment>(`SELECT ${COLUMNS} FROM x402_payments WHERE id = $1 FOR UPDATE`, [id]);
    const p = rows[0];
    if (!p) throw new DomainError('PAYMENT_NOT_FOUND', `Payment ${id} not found`);
    if (p.status === 'refunded') {
      await onRefunded?.(c);
      return p;
    }
    if (p.status !== 'settled' || !p.entryId) throw new DomainError('PAYMENT_NOT_REFUNDABLE', `Payment ${id} is ${p.status}`);
    const reversal = await reverseEntry(p.entryId, { idempotencyKey: `x402-refund:${id}`, reason }, c);
    const { rows: updated } = await c.query<X402Payment>(
      `UPDATE x402_payments SET status = 'refunded', refund_entry_id = $2, refunded_at = now(), failure_reason = coalesce(failure_reason, $3) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, reversal.id, reason],
    );
    await onRefunded?.(c);
    return updated[0];
  });
}
