/** Wire shapes of the ledger area. */
import type { Entry, LedgerAccount, TrialBalance } from '../../../domain/ledger';

export function presentLedgerAccount(a: LedgerAccount) {
  return {
    id: a.id,
    name: a.name,
    kind: a.kind,
    code: a.code,
    asset_code: a.assetCode,
    normal_balance: a.normalBalance,
    no_overdraft: a.noOverdraft,
    status: a.status,
    account_uuid: a.accountId,
    debits_pending: a.debitsPending,
    debits_posted: a.debitsPosted,
    credits_pending: a.creditsPending,
    credits_posted: a.creditsPosted,
    total_balance: a.totalBalance,
    available_balance: a.availableBalance,
    reserved_balance: a.reservedBalance,
    overdraft_allowance: a.overdraftAllowance,
  };
}

export function presentEntry(e: Entry) {
  return {
    id: e.id,
    type: e.type,
    status: e.status,
    two_phase: e.twoPhase,
    description: e.description,
    reference: e.reference,
    metadata: e.metadata,
    reverses_entry_id: e.reversesEntryId,
    reversed_by_entry_id: e.reversedByEntryId,
    forced_overdraft: e.forcedOverdraft,
    pending_expires_at: e.pendingExpiresAt?.toISOString() ?? null,
    void_reason: e.voidReason,
    created_at: e.createdAt.toISOString(),
    posted_at: e.postedAt?.toISOString() ?? null,
    voided_at: e.voidedAt?.toISOString() ?? null,
    lines: e.lines.map((l) => ({
      id: l.id,
      account_id: l.accountId,
      asset_code: l.assetCode,
      direction: l.direction,
      amount: l.amount,
      balance_after: l.balanceAfter,
      status: l.status,
    })),
  };
}

export function presentTrialBalance(tb: TrialBalance) {
  return {
    environment: tb.environment,
    from: tb.from?.toISOString() ?? null,
    to: tb.to?.toISOString() ?? null,
    balanced: tb.balanced,
    assets: tb.assets.map((a) => ({ asset_code: a.assetCode, total_debits: a.totalDebits, total_credits: a.totalCredits, balanced: a.balanced })),
    accounts: tb.accounts.map((a) => ({
      id: a.id,
      name: a.name,
      kind: a.kind,
      code: a.code,
      asset_code: a.assetCode,
      normal_balance: a.normalBalance,
      debits: a.debits,
      credits: a.credits,
      balance: a.balance,
    })),
  };
}
