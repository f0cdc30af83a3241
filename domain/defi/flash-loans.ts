/**
 * Flash loans: borrow from a lending pool, run the operations in order against the DEX pools,
 * repay the amount plus the lender's fee, keep the profit; all in ONE database transaction with
 * the lending pool and every pool involved locked. Each operation writes its pool's new reserves
 * at once; any failure (an operation that cannot run, a final balance that cannot repay the loan,
 * its fee and the network fee) raises inside the transaction, so PostgreSQL rolls everything
 * back: no ledger entry, pools and lender unchanged. The error names the failing step.
 *
 * An operation `{ type: 'swap', from, to, dex }` swaps everything held of `from` into `to` on
 * the best direct pool of that DEX (at the reserves as the previous operations left them). Like
 * swaps, each output is floored to the ledger precision of its asset (the pool keeps the dust).
 */
import { getAsset } from '../assets';
import { chainAdapterFor } from '../chains/adapter';
import { getChain, getToken, type ChainInfo, type TokenInfo } from '../chains/registry';
import { getPool as getDb, withTransaction, type Queryable } from '../db/pool';
import { postEntry, systemAccount, workflowIdempotencyKey, type LineInput } from '../ledger';
import { DecimalMoney as D, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { latestRate } from '../rates';
import { dexSettlementAccount, ensureChainLedgerAccount, lenderAccount, resolveAccount } from './accounts';
import { chainAdapterOrUnavailable, gasCostNative, nativeUsdPrice } from './gas';
import { DEX_NAMES, listPools, lockLendingPool, lockPools, recordLoanRepaid, saveReserves, type DexPool } from './pools';
import { applySwap, floorToPrecision, fromBaseUnits, getAmountOut, PricingError, toBaseUnits } from './swaps/pricing';
import { poolAsset } from './swaps/quotes';

export const FLASH_LOAN_OPERATION_TYPES = ['swap'] as const;

/** Gas of a flash loan: the loan itself plus each swap (charged from the profit). */
export const FLASH_LOAN_GAS = { base: 250_000n, perOperation: 110_000n };

export interface FlashLoanOperationInput {
  type: string;
  from: string;
  to: string;
  dex: string;
}

export interface FlashLoanRequest {
  loanId: string;
  userId: string;
  environment: Environment;
  accountId: string;
  chain: string;
  token: string;
  amount: string;
  operations: FlashLoanOperationInput[];
}

export interface FlashLoanOperationResult {
  index: number;
  type: 'swap';
  dex: string;
  pool_id: string;
  from: string;
  to: string;
  amount_in: string;
  amount_out: string;
}

export interface FlashLoan {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  chain: string;
  lendingPoolId: string;
  token: string;
  assetCode: string;
  amount: string;
  fee: string;
  operations: FlashLoanOperationResult[];
  finalAmount: string;
  networkFee: string;
  profit: string;
  entryId: string;
  workflowId: string;
  /** ISO timestamp (the loan crosses the workflow boundary as JSON). */
  createdAt: string;
}

export type FlashLoanFailureStep = 'borrow' | 'operation' | 'repay';

export type FlashLoanResult =
  | { ok: true; loan: FlashLoan }
  | { ok: false; step: FlashLoanFailureStep; operationIndex: number | null; code: string; reason: string };

class FlashLoanFailure extends Error {
  constructor(
    readonly step: FlashLoanFailureStep,
    readonly operationIndex: number | null,
    readonly code: string,
    reason: string,
  ) {
    super(reason);
  }
}

export const flashLoanWorkflowId = (id: string) => `flash-loan-${id}`;

/**
 * Request checks made before anything runs (422 with a pointer): chain, token, amount at the
 * token's precision, each operation's type, DEX and tokens on that chain, and the account.
 */
export async function validateFlashLoan(input: {
  loanId: string;
  userId: string;
  environment: Environment;
  accountId?: string | null;
  chain?: string | null;
  token: unknown;
  amount: unknown;
  operations: FlashLoanOperationInput[];
}): Promise<FlashLoanRequest> {
  const chain = getChain(input.chain ?? 'ethereum', '/chain');
  const token = getToken(chain.id, input.token, '/token');
  const asset = (await getAsset(token.assetCode))!;
  const amount = parseRequestAmount(input.amount, asset, '/amount', Math.min(asset.precision, token.decimals));
  input.operations.forEach((op, i) => {
    if (!(FLASH_LOAN_OPERATION_TYPES as readonly string[]).includes(op.type)) {
      throw new DomainError('UNSUPPORTED_OPERATION', `operation type must be one of ${FLASH_LOAN_OPERATION_TYPES.join(', ')}`, `/operations/${i}/type`);
    }
    if (!(DEX_NAMES as readonly string[]).includes(String(op.dex).toLowerCase())) {
      throw new DomainError('UNKNOWN_DEX', `Unknown DEX ${JSON.stringify(op.dex)}; supported: ${DEX_NAMES.join(', ')}`, `/operations/${i}/dex`);
    }
    getToken(chain.id, op.from, `/operations/${i}/from`);
    getToken(chain.id, op.to, `/operations/${i}/to`);
  });
  const acct = await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId });
  chainAdapterOrUnavailable(input.environment);
  return {
    loanId: input.loanId,
    userId: input.userId,
    environment: input.environment,
    accountId: acct.accountId,
    chain: chain.id,
    token: token.symbol,
    amount,
    operations: input.operations.map((o) => ({ type: o.type, from: o.from, to: o.to, dex: String(o.dex).toLowerCase() })),
  };
}

interface Flow {
  accountId: string;
  /** debits - credits, at the asset's precision */
  net: InstanceType<typeof D>;
}

/** Runs the loan; returns the recorded loan, or which step failed and why (nothing changed then). */
export async function executeFlashLoan(req: FlashLoanRequest & { workflowId: string; nowMs: number }): Promise<FlashLoanResult> {
  const chain = getChain(req.chain);
  const token = getToken(chain.id, req.token);
  const at = new Date(req.nowMs);
  const [gasPrice, nativeUsd, loanRate] = await Promise.all([chainAdapterFor(req.environment).gasPriceGwei(chain.id, at), nativeUsdPrice(chain), latestRate(token.assetCode)]);
  try {
    const loan = await withTransaction((c) => run(c, req, chain, token, gasPrice, nativeUsd, loanRate ? new D(loanRate.rate) : null));
    return { ok: true, loan };
  } catch (err) {
    if (err instanceof FlashLoanFailure) return { ok: false, step: err.step, operationIndex: err.operationIndex, code: err.code, reason: err.message };
    throw err;
  }
}

async function precisionOf(asset: string, c: Queryable): Promise<number> {
  return (await getAsset(asset, c))!.precision;
}

async function run(
  c: Queryable,
  req: FlashLoanRequest & { workflowId: string },
  chain: ChainInfo,
  token: TokenInfo,
  gasPrice: string,
  nativeUsd: InstanceType<typeof D>,
  loanRate: InstanceType<typeof D> | null,
): Promise<FlashLoan> {
  const loanAsset = poolAsset(token);
  const lending = await lockLendingPool(c, req.environment, chain.id, loanAsset);
  if (!lending) throw new FlashLoanFailure('borrow', null, 'NO_LENDING_POOL', `No flash-loan lender for ${token.symbol} on ${chain.id}`);
  const amountBase = toBaseUnits(req.amount, lending.decimals);
  if (amountBase > lending.liquidity) {
    throw new FlashLoanFailure('borrow', null, 'INSUFFICIENT_LIQUIDITY', `The ${lending.protocol} pool can lend at most ${fromBaseUnits(lending.liquidity, lending.decimals)} ${token.symbol}`);
  }
  const loanPrecision = await precisionOf(token.assetCode, c);
  const unit = lending.decimals > loanPrecision ? 10n ** BigInt(lending.decimals - loanPrecision) : 1n;
  // The lender's premium, rounded up to what the ledger can carry.
  let feeBase = (amountBase * BigInt(lending.feePpm) + 999_999n) / 1_000_000n;
  feeBase = ((feeBase + unit - 1n) / unit) * unit;

  // Lock every pool an operation may use, in id order, before touching any.
  const all = await listPools(c, req.environment, chain.id);
  const opTokens = req.operations.map((op) => ({ from: poolAsset(getToken(chain.id, op.from)), to: poolAsset(getToken(chain.id, op.to)), fromSymbol: op.from, toSymbol: op.to }));
  const wanted = all.filter((p) => req.operations.some((op, i) => p.dex === op.dex && p.tokens.includes(opTokens[i].from) && p.tokens.includes(opTokens[i].to)));
  const pools = await lockPools(c, req.environment, wanted.map((p) => p.id));

  const holdings = new Map<string, bigint>([[loanAsset, amountBase]]);
  const results: FlashLoanOperationResult[] = [];
  const flows = new Map<string, Flow>();
  // Net flow per ledger account (each holds one asset): received is a debit, sent a credit.
  const flow = (accountId: string, debit: InstanceType<typeof D>) => {
    const f = flows.get(accountId) ?? { accountId, net: new D(0) };
    f.net = f.net.plus(debit);
    flows.set(accountId, f);
  };
  const lenderLa = await lenderAccount(req.environment, chain.id, lending.protocol, token.assetCode, c);
  flow(lenderLa, new D(req.amount));

  for (let i = 0; i < req.operations.length; i++) {
    const op = req.operations[i];
    const { from, to } = opTokens[i];
    const held = holdings.get(from) ?? 0n;
    if (held <= 0n) throw new FlashLoanFailure('operation', i, 'NOTHING_TO_SWAP', `operation ${i} swaps ${op.from}, but the loan holds no ${op.from} at this point`);
    const candidates = [...pools.values()].filter((p) => p.dex === op.dex && p.tokens.includes(from) && p.tokens.includes(to));
    if (candidates.length === 0) throw new FlashLoanFailure('operation', i, 'NO_POOL', `${op.dex} has no ${op.from}/${op.to} pool on ${chain.id}`);
    const precisionTo = await precisionOf(to === loanAsset ? token.assetCode : to, c);
    let best: { pool: DexPool; out: bigint } | null = null;
    let refusal: PricingError | null = null;
    for (const p of candidates) {
      try {
        const raw = getAmountOut(p, from, to, held);
        const out = floorToPrecision(raw, p.decimals[p.tokens.indexOf(to)], precisionTo);
        if (out > 0n && out < p.reserves[p.tokens.indexOf(to)] && (!best || out > best.out)) best = { pool: p, out };
      } catch (err) {
        if (err instanceof PricingError) refusal = err;
        else throw err;
      }
    }
    if (!best) throw new FlashLoanFailure('operation', i, 'INSUFFICIENT_LIQUIDITY', refusal?.message ?? `${op.dex} cannot swap ${op.from} for ${op.to} at this size`);
    const after = { ...applySwap(best.pool, from, to, held, best.out), environment: best.pool.environment } as DexPool;
    pools.set(after.id, after);
    await saveReserves(c, after);
    const fromDecimals = best.pool.decimals[best.pool.tokens.indexOf(from)];
    const toDecimals = best.pool.decimals[best.pool.tokens.indexOf(to)];
    holdings.set(from, 0n);
    holdings.set(to, (holdings.get(to) ?? 0n) + best.out);
    const assetFrom = from === loanAsset ? token.assetCode : from;
    const assetTo = to === loanAsset ? token.assetCode : to;
    const inHuman = new D(held.toString()).div(new D(10).pow(fromDecimals));
    const outHuman = new D(best.out.toString()).div(new D(10).pow(toDecimals));
    flow(await dexSettlementAccount(req.environment, chain.id, op.dex, assetFrom, c), inHuman.neg());
    flow(await dexSettlementAccount(req.environment, chain.id, op.dex, assetTo, c), outHuman);
    results.push({
      index: i,
      type: 'swap',
      dex: op.dex,
      pool_id: best.pool.id,
      from: op.from,
      to: op.to,
      amount_in: fromBaseUnits(held, fromDecimals, Math.min(fromDecimals, await precisionOf(assetFrom, c))),
      amount_out: fromBaseUnits(best.out, toDecimals, Math.min(toDecimals, precisionTo)),
    });
  }

  const leftover = [...holdings.entries()].filter(([a, v]) => a !== loanAsset && v > 0n);
  if (leftover.length > 0) {
    throw new FlashLoanFailure('repay', null, 'NOT_REPAID', `The operations end holding ${leftover.map(([a]) => a).join(', ')}: the loan must be repaid in ${token.symbol}`);
  }
  const finalBase = holdings.get(loanAsset) ?? 0n;
  const owedBase = amountBase + feeBase;
  const fmt = (v: bigint) => fromBaseUnits(v, lending.decimals, Math.min(lending.decimals, loanPrecision));
  if (finalBase < owedBase) {
    throw new FlashLoanFailure('repay', null, 'NOT_REPAID', `The operations end with ${fmt(finalBase)} ${token.symbol}; repaying needs ${fmt(owedBase)} (${req.amount} + fee ${fmt(feeBase)})`);
  }
  const gasUnits = FLASH_LOAN_GAS.base + FLASH_LOAN_GAS.perOperation * BigInt(req.operations.length);
  const networkFee = loanRate && !loanRate.isZero() ? gasCostNative(chain, gasUnits, gasPrice).times(nativeUsd).div(loanRate).toDecimalPlaces(loanPrecision, D.ROUND_UP) : new D(0);
  const surplus = new D(fmt(finalBase - owedBase));
  if (surplus.lt(networkFee)) {
    throw new FlashLoanFailure('repay', null, 'UNPROFITABLE', `The surplus after repaying (${surplus.toFixed(loanPrecision)} ${token.symbol}) does not cover the network fee (${networkFee.toFixed(loanPrecision)} ${token.symbol})`);
  }
  const profit = surplus.minus(networkFee);
  const fee = new D(fmt(feeBase));
  flow(lenderLa, new D(req.amount).plus(fee).neg());

  // One balanced entry: per venue its net flow, the network fee, the profit to the customer's book.
  const lines: LineInput[] = [];
  for (const f of flows.values()) {
    if (f.net.isZero()) continue;
    lines.push({ accountId: f.accountId, direction: f.net.gt(0) ? 'debit' : 'credit', amount: f.net.abs().toFixed() });
  }
  if (networkFee.gt(0)) lines.push({ accountId: await systemAccount(req.environment, token.assetCode, 'fee_revenue', req.loanId, c), direction: 'credit', amount: networkFee.toFixed(loanPrecision), transactionType: 'fee' });
  if (profit.gt(0)) lines.push({ accountId: await ensureChainLedgerAccount(c, req.accountId, token.assetCode, chain.id), direction: 'credit', amount: profit.toFixed(loanPrecision) });
  const entry = await postEntry(
    {
      environment: req.environment,
      idempotencyKey: workflowIdempotencyKey(req.workflowId, 'flash-loan'),
      type: 'flash_loan',
      description: `Flash loan of ${req.amount} ${token.symbol} on ${chain.id} (${lending.protocol}), ${req.operations.length} operation(s)`,
      lines,
      userId: req.userId,
      metadata: { flash_loan_id: req.loanId, chain: chain.id, lender: lending.id, operations: results },
    },
    c,
  );
  await recordLoanRepaid(c, lending, feeBase);
  const { rows } = await c.query<{ created_at: Date }>(
    `INSERT INTO defi_flash_loans (id, environment, user_id, account_id, chain, lending_pool_id, token, asset_code, amount, fee, operations, final_amount, network_fee, profit, entry_id, workflow_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING created_at`,
    [req.loanId, req.environment, req.userId, req.accountId, chain.id, lending.id, token.symbol, token.assetCode, req.amount, fee.toFixed(), JSON.stringify(results), fmt(finalBase), networkFee.toFixed(), profit.toFixed(), entry.id, req.workflowId],
  );
  return {
    id: req.loanId,
    environment: req.environment,
    userId: req.userId,
    accountId: req.accountId,
    chain: chain.id,
    lendingPoolId: lending.id,
    token: token.symbol,
    assetCode: token.assetCode,
    amount: req.amount,
    fee: fee.toFixed(loanPrecision),
    operations: results,
    finalAmount: fmt(finalBase),
    networkFee: networkFee.toFixed(loanPrecision),
    profit: profit.toFixed(loanPrecision),
    entryId: entry.id,
    workflowId: req.workflowId,
    createdAt: rows[0].created_at.toISOString(),
  };
}

interface LoanRow {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  chain: string;
  lending_pool_id: string;
  token: string;
  asset_code: string;
  amount: string;
  fee: string;
  operations: FlashLoanOperationResult[];
  final_amount: string;
  network_fee: string;
  profit: string;
  entry_id: string;
  workflow_id: string;
  created_at: Date;
  precision: number;
}

function toLoan(r: LoanRow): FlashLoan {
  const f = (v: string) => new D(v).toFixed(r.precision);
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    chain: r.chain,
    lendingPoolId: r.lending_pool_id,
    token: r.token,
    assetCode: r.asset_code,
    amount: f(r.amount),
    fee: f(r.fee),
    operations: r.operations,
    finalAmount: f(r.final_amount),
    networkFee: f(r.network_fee),
    profit: f(r.profit),
    entryId: r.entry_id,
    workflowId: r.workflow_id,
    createdAt: r.created_at.toISOString(),
  };
}

export async function listFlashLoans(userId: string, environment: Environment, limit = 50, c: Queryable = getDb()): Promise<FlashLoan[]> {
  const { rows } = await c.query<LoanRow>(
    `SELECT l.*, a.precision FROM defi_flash_loans l JOIN assets a ON a.code = l.asset_code
     WHERE l.user_id = $1 AND l.environment = $2 ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
    [userId, environment, limit],
  );
  return rows.map(toLoan);
}

export async function getFlashLoan(id: string, scope: { userId: string; environment: Environment }, c: Queryable = getDb()): Promise<FlashLoan | null> {
  const { rows } = await c.query<LoanRow>(`SELECT l.*, a.precision FROM defi_flash_loans l JOIN assets a ON a.code = l.asset_code WHERE l.id = $1`, [id]);
  const r = rows[0];
  return r && r.user_id === scope.userId && r.environment === scope.environment ? toLoan(r) : null;
}
