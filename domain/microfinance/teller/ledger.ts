/**
 * The teller area's ledger accounts, all internal (domain/ledger createInternalLedgerAccount) and
 * debit-normal (cash the institution holds, or its positions):
 *
 * - vault `mf:vault:<office>` per office and currency, no overdraft: a vault never pays out cash
 *   it does not hold (sessions' floats);
 * - till `mf:till:<session>` per cashier session and currency, no overdraft: a till never pays out
 *   more than it holds (withdrawals, exchanges), which the ledger decides under its row locks, so
 *   concurrent withdrawals cannot overdraw it either. One till per session (not per teller) keeps
 *   each session's reconciliation on its own account: it starts at zero, ends at zero and is
 *   closed with the session;
 * - FX position `mf:fx_position` per currency: the currency an exchange takes in and pays out
 *   passes through it, so each entry balances per asset;
 * - cash variance `mf:cash_variance` per currency: shortages (debit) and overages (credit)
 *   approved by a supervisor.
 */
import { LedgerError, internalLedgerAccountId, postEntry, type LineInput, type PostEntryInput, type Entry, type Queryable } from '../../ledger';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';

export const vaultCode = (officeId: string) => `mf:vault:${officeId}`;
export const tillCode = (sessionId: string) => `mf:till:${sessionId}`;
export const FX_POSITION_CODE = 'mf:fx_position';
export const CASH_VARIANCE_CODE = 'mf:cash_variance';

export async function vaultAccount(environment: Environment, officeId: string, currency: string, client: Queryable): Promise<string> {
  const id = await internalLedgerAccountId(
    { environment, assetCode: currency, code: vaultCode(officeId), name: `Vault ${officeId} ${currency}`, normalBalance: 'debit', noOverdraft: true },
    client,
  );
  await client.query(
    `INSERT INTO mf_office_vaults (office_id, currency, ledger_account_id) VALUES ($1, $2, $3) ON CONFLICT (office_id, currency) DO NOTHING`,
    [officeId, currency, id],
  );
  return id;
}

export async function tillAccount(environment: Environment, sessionId: string, currency: string, client: Queryable): Promise<string> {
  const id = await internalLedgerAccountId(
    { environment, assetCode: currency, code: tillCode(sessionId), name: `Till ${sessionId} ${currency}`, normalBalance: 'debit', noOverdraft: true },
    client,
  );
  await client.query(
    `INSERT INTO mf_teller_session_tills (session_id, currency, ledger_account_id) VALUES ($1, $2, $3) ON CONFLICT (session_id, currency) DO NOTHING`,
    [sessionId, currency, id],
  );
  return id;
}

export function fxPositionAccount(environment: Environment, currency: string, client: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode: currency, code: FX_POSITION_CODE, name: `Teller FX position ${currency}`, normalBalance: 'debit' }, client);
}

export function cashVarianceAccount(environment: Environment, currency: string, client: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode: currency, code: CASH_VARIANCE_CODE, name: `Teller cash variance ${currency}`, normalBalance: 'debit' }, client);
}

/** Line helpers. */
export const dr = (accountId: string, amount: string, extra: Partial<LineInput> = {}): LineInput => ({ accountId, direction: 'debit', amount, ...extra });
export const cr = (accountId: string, amount: string, extra: Partial<LineInput> = {}): LineInput => ({ accountId, direction: 'credit', amount, ...extra });

/**
 * Posts an entry; a shortfall on one of `named` accounts becomes that code (e.g. the till's
 * TILL_INSUFFICIENT_CASH), the first listed winning when several fall short; other ledger refusals
 * keep their code.
 */
export async function post(input: PostEntryInput, named: Array<{ accountId: string; code: string; message: string; pointer?: string }>, client: Queryable): Promise<Entry> {
  try {
    return await postEntry(input, client);
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    if (err.code === 'INSUFFICIENT_FUNDS') {
      const short = new Set(((err.details.shortfall as Array<{ account_id: string }> | undefined) ?? []).map((s) => s.account_id));
      const hit = named.find((n) => short.has(n.accountId));
      if (hit) throw new DomainError(hit.code, hit.message, hit.pointer, { shortfall: err.details.shortfall });
    }
    throw new DomainError(err.code, err.message, undefined, err.details);
  }
}
