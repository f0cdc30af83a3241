/**
 * The checks a transfer passes before money moves (resolveParties), the memory of account facts
 * that lets immediate transfers skip them, and how a ledger refusal is reported.
 */
import { statusRefusal } from '../accounts/status';
import type { Asset, AssetCatalog } from '../assets';
import type { Queryable } from '../db/pool';
import { LedgerError } from '../ledger';
import { parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError as TransferError } from '../platform/errors';

export interface CreateTransferInput {
  userId: string;
  environment: Environment;
  fromAccountId: string;
  toAccountId: string;
  amount: string;
  assetCode: string;
  reference?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown>;
  /**
   * The request's Idempotency-Key as its scope records it (api/plugins/idempotency.ts
   * operationRequestKey): written with the transfer in its transaction, unique, so a request run
   * again (a retry that took over the key of a request whose process died) gets the transfer the
   * first run made instead of a second one.
   */
  requestKey?: string | null;
}

export interface Party {
  id: string;
  environment: Environment;
  /** The account's ledger account for the transfer's asset, when it already has one. */
  ledgerAccountId: string | null;
}

export interface Parties {
  from: Party;
  to: Party;
  asset: Asset;
  amount: string;
}

/**
 * What never changes about an account once read: its owner, its environment and the ledger
 * account that holds an asset for it. Immediate transfers take these from memory; an account's
 * status is not among them (the ledger checks freeze and close under its row locks).
 */
export type AccountFact = { userId: string; environment: Environment; ledgerAccountId: string; tenantId: string | null };

/** Account facts of one database, per (account, asset), the oldest forgotten first past `max`. */
export class AccountFacts {
  private readonly facts = new Map<string, AccountFact>();

  constructor(private readonly max = 100_000) {}

  get(accountId: string, assetCode: string): AccountFact | undefined {
    return this.facts.get(`${accountId}|${assetCode}`);
  }

  remember(accountId: string, assetCode: string, fact: AccountFact): void {
    if (this.facts.size >= this.max) this.facts.delete(this.facts.keys().next().value as string);
    this.facts.set(`${accountId}|${assetCode}`, fact);
  }
}

/**
 * The checks every transfer passes before money moves: the source is the caller's, the
 * destination exists in the same environment, asset and amount are valid. Balance, freeze and
 * close are enforced again by the ledger under its row locks, so a race cannot slip through.
 * With `fromMemory`, accounts already seen skip the database read, and freeze and close are left
 * to the ledger alone (the caller maps its refusal with ledgerRefusal).
 */
export async function resolveParties(
  deps: { assets: AssetCatalog; facts: AccountFacts },
  input: CreateTransferInput,
  client: Queryable,
  fromMemory = false,
): Promise<Parties> {
  const asset = await deps.assets.getAsset(input.assetCode, client);
  if (!asset) throw new TransferError('UNKNOWN_ASSET', `Asset ${input.assetCode} is not supported`, '/asset_code');
  const amount = parseRequestAmount(input.amount, asset);
  if (input.fromAccountId === input.toAccountId) {
    throw new TransferError('SAME_ACCOUNT', 'Source and destination must be different accounts', '/to_account');
  }
  if (fromMemory) {
    const from = deps.facts.get(input.fromAccountId, asset.code);
    const to = deps.facts.get(input.toAccountId, asset.code);
    // Anything else (not yet seen, someone else's, another environment) takes the read below.
    if (from && to && from.userId === input.userId && from.environment === input.environment && to.environment === input.environment && from.tenantId === to.tenantId) {
      return {
        from: { id: input.fromAccountId, environment: from.environment, ledgerAccountId: from.ledgerAccountId },
        to: { id: input.toAccountId, environment: to.environment, ledgerAccountId: to.ledgerAccountId },
        asset,
        amount,
      };
    }
  }
  // Both accounts and, when they exist, their home-chain ('') ledger accounts for the asset: one round trip.
  const { rows } = await client.query<{ id: string; user_id: string; environment: Environment; status: string; la_id: string | null; tenant_id: string | null }>({
    name: 'transfers_resolve_parties',
    text: `SELECT a.id, a.user_id, a.environment, a.status, la.id AS la_id, a.tenant_id
       FROM accounts a LEFT JOIN ledger_accounts la ON la.account_id = a.id AND la.asset_code = $2 AND la.chain = ''
      WHERE a.id IN ($1, $3)`,
    // Two parameters, not an array: the planner's estimate is then the same for every call, so
    // PostgreSQL keeps one generic plan instead of planning each transfer anew.
    values: [input.fromAccountId, asset.code, input.toAccountId],
  });
  const fromRow = rows.find((r) => r.id === input.fromAccountId);
  const toRow = rows.find((r) => r.id === input.toAccountId);
  if (!fromRow || fromRow.user_id !== input.userId || fromRow.environment !== input.environment) {
    throw new TransferError('ACCOUNT_NOT_FOUND', `Account ${input.fromAccountId} not found`, '/from_account');
  }
  // A partner tenant's money stays inside it (domain/partner/tenants.ts): outside, the account does not exist.
  if (!toRow || (toRow.tenant_id ?? null) !== (fromRow.tenant_id ?? null)) {
    throw new TransferError('DESTINATION_NOT_FOUND', `Destination account ${input.toAccountId} does not exist`, '/to_account');
  }
  if (toRow.environment !== input.environment) {
    throw new TransferError('ENVIRONMENT_MISMATCH', 'The destination account belongs to another environment', '/to_account');
  }
  for (const r of rows) if (r.la_id) deps.facts.remember(r.id, asset.code, { userId: r.user_id, environment: r.environment, ledgerAccountId: r.la_id, tenantId: r.tenant_id ?? null });
  const refused = statusRefusal('from', fromRow.status) ?? statusRefusal('to', toRow.status);
  if (refused) throw refused;
  return {
    from: { id: fromRow.id, environment: fromRow.environment, ledgerAccountId: fromRow.la_id },
    to: { id: toRow.id, environment: toRow.environment, ledgerAccountId: toRow.la_id },
    asset,
    amount,
  };
}

/**
 * A ledger refusal of a transfer's posting as the API reports it. Freeze and close come back as
 * the same errors the pre-checks give, naming the side (the ledger says which ledger account).
 */
export function ledgerRefusal(err: unknown, parties: Pick<Parties, 'from' | 'to'>): never {
  if (err instanceof LedgerError && (err.code === 'ACCOUNT_FROZEN' || err.code === 'ACCOUNT_CLOSED')) {
    const side = err.details.account_id === parties.to.ledgerAccountId ? 'to' : 'from';
    const refused = statusRefusal(side, err.code === 'ACCOUNT_FROZEN' ? 'frozen' : 'closed');
    if (refused) throw refused;
  }
  mapLedgerError(err);
}

export function mapLedgerError(err: unknown): never {
  if (err instanceof LedgerError) {
    throw new TransferError(err.code, err.message);
  }
  throw err;
}
