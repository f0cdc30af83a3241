/**
 * Whether an account-information read (Berlin Group AIS) may happen: the TPP's consent, its status
 * and validity, the account and the access it grants there, and the reads a day without the
 * customer (RTS 2018/389 Art. 36(5)). Every AIS read goes through withAccess (checkAccess, then
 * the read beside the count) before anything of the account is returned.
 *
 * Order of the refusals, each with its Berlin Group code (statuses in api/error-status.ts):
 * FORMAT_ERROR (no Consent-ID) → CONSENT_UNKNOWN (none of this TPP's in its environment, never
 * saying whether it exists) → CONSENT_INVALID / CONSENT_EXPIRED (status, valid_until) →
 * RESOURCE_UNKNOWN (account not in the consent) → CONSENT_INVALID (access missing there) →
 * ACCESS_EXCEEDED (frequencyPerDay used up). Only a read that passed all the others is counted.
 *
 * Nothing is cached: a revocation ends access with the next read.
 */
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { effectiveStatus, type ConsentStatus } from './consents';
import type { Tpp } from './tpps';

export type AisEndpoint = 'accounts' | 'account' | 'balances' | 'transactions';

/** What the consent allows on one account. */
export interface ConsentAccount {
  accountId: string;
  iban: string;
  accounts: boolean;
  balances: boolean;
  transactions: boolean;
}

export interface AisConsent {
  id: string;
  environment: Environment;
  tppId: string;
  /** The customer who authorised it (always set on a valid consent). */
  userId: string;
  status: ConsentStatus;
  /** Inclusive, 'YYYY-MM-DD' (UTC). */
  validUntil: string;
  frequencyPerDay: number;
  recurring: boolean;
}

export interface AisAccessRequest {
  endpoint: AisEndpoint;
  /** null for the account list. */
  accountId: string | null;
  /** PSU-IP-Address was sent: the customer asked now, so the read is not counted. */
  psuPresent: boolean;
}

export interface AisGrant {
  consent: AisConsent;
  /**
   * The accounts this read covers (the one addressed, or for the list every account with account
   * access), each the consenting customer's in the consent's environment.
   */
  accounts: ConsentAccount[];
}

/** Which consent flag each endpoint needs on the account (details and the list need account access). */
const ACCESS_OF: Record<AisEndpoint, 'accounts' | 'balances' | 'transactions'> = {
  accounts: 'accounts',
  account: 'accounts',
  balances: 'balances',
  transactions: 'transactions',
};
const ACCESS_TEXT = { accounts: 'account details', balances: 'balances', transactions: 'transactions' } as const;

interface Row {
  id: string;
  environment: Environment;
  tpp_id: string;
  user_id: string | null;
  status: ConsentStatus;
  valid_until: string;
  frequency_per_day: number;
  recurring: boolean;
  accounts: Array<{ account_id: string; iban: string; accounts: boolean; balances: boolean; transactions: boolean }>;
}

/**
 * The consent with its accounts in one statement (the hot path of every read). Another TPP's or
 * environment's consent is simply not found; an account that is not the consenting customer's
 * in the consent's environment is left out, so the reads after this need no ownership check.
 */
const READ_CONSENT = `
  SELECT c.id, c.environment, c.tpp_id, c.user_id, c.status, c.valid_until::text AS valid_until, c.frequency_per_day, c.recurring,
         coalesce((SELECT json_agg(json_build_object('account_id', ca.account_id, 'iban', i.iban, 'accounts', ca.accounts,
                                                     'balances', ca.balances, 'transactions', ca.transactions) ORDER BY i.iban)
                     FROM ob_consent_accounts ca
                     JOIN accounts a ON a.id = ca.account_id AND a.user_id = c.user_id AND a.environment = c.environment
                     JOIN account_ibans i ON i.account_id = ca.account_id
                    WHERE ca.consent_id = c.id), '[]') AS accounts
    FROM ob_consents c
   WHERE c.id = $1 AND c.tpp_id = $2 AND c.environment = $3`;

/**
 * Counts one read without the customer, unless the day's count already reached the limit: one
 * statement, under the row's lock, so parallel reads never pass frequencyPerDay. No row back
 * means the limit was reached (nothing written).
 *
 * The statement's own transaction commits without waiting for the WAL flush (set_config(...,
 * true) lasts until that commit): a counted read then costs no fsync (~2.5 ms here). What it
 * risks is only this: a database crash may forget the counts of the last moments (at most about
 * three wal_writer_delay, 0.6 s), letting a TPP read that many more times that day. Locking, and
 * so the limit under parallel reads, is unchanged.
 */
const COUNT_READ = `
  WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO ob_access_counts (consent_id, endpoint, account_id, day, count)
  SELECT $1, $2, $3, $4, 1 FROM async_commit
  ON CONFLICT (consent_id, endpoint, account_id, day) DO UPDATE SET count = ob_access_counts.count + 1
   WHERE ob_access_counts.count < $5
  RETURNING count`;

/** Today's date in UTC, as the consent's validity and the daily counts use it. */
export function utcToday(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

function consentInvalid(message: string) {
  return new DomainError('CONSENT_INVALID', message);
}

/** Refuses a consent that cannot be used for reads now (its status, or past its validUntil day). */
function refuseStatus(c: Row, now: Date): void {
  const status = effectiveStatus({ status: c.status, validUntil: c.valid_until }, now);
  if (status === 'expired') throw new DomainError('CONSENT_EXPIRED', `The consent expired (valid until ${c.valid_until})`);
  if (status === 'received') throw consentInvalid('The consent is not authorised by the customer yet');
  if (status !== 'valid') throw consentInvalid(`The consent is ${status} and can no longer be used`);
  if (c.user_id === null) throw consentInvalid('The consent names no customer');
}

/** Every refusal before the count; the grant of a read that may go ahead (and is not yet counted). */
async function authoriseRead(tpp: Tpp, consentId: string | undefined, req: AisAccessRequest, now: Date, client: Queryable): Promise<AisGrant> {
  if (typeof consentId !== 'string' || consentId.trim() === '') {
    throw new DomainError('FORMAT_ERROR', 'The Consent-ID header is required on account information calls', '/headers/consent-id');
  }
  // Named: each connection plans the statement once and keeps the plan.
  const { rows } = await client.query<Row>({ name: 'ob_read_consent', text: READ_CONSENT, values: [consentId.trim(), tpp.id, tpp.environment] });
  const row = rows[0];
  if (!row) throw new DomainError('CONSENT_UNKNOWN', 'The Consent-ID does not match a consent of this TPP');
  refuseStatus(row, now);

  const access = ACCESS_OF[req.endpoint];
  const all: ConsentAccount[] = row.accounts.map((a) => ({
    accountId: a.account_id,
    iban: a.iban,
    accounts: a.accounts,
    balances: a.balances,
    transactions: a.transactions,
  }));
  let accounts: ConsentAccount[];
  if (req.accountId === null) {
    accounts = all.filter((a) => a[access]);
    if (accounts.length === 0) throw consentInvalid(`The consent gives access to ${ACCESS_TEXT[access]} of no account`);
  } else {
    const account = all.find((a) => a.accountId === req.accountId);
    if (!account) throw new DomainError('RESOURCE_UNKNOWN', 'The account is not addressed by this consent');
    if (!account[access]) throw consentInvalid(`The consent does not give access to ${ACCESS_TEXT[access]} of this account`);
    accounts = [account];
  }
  return {
    consent: {
      id: row.id,
      environment: row.environment,
      tppId: row.tpp_id,
      userId: row.user_id!,
      status: row.status,
      validUntil: row.valid_until,
      frequencyPerDay: row.frequency_per_day,
      recurring: row.recurring,
    },
    accounts,
  };
}

/** Counts a read without the customer, or refuses it with ACCESS_EXCEEDED when the day's reads are used up. */
async function countRead(grant: AisGrant, req: AisAccessRequest, now: Date, client: Queryable): Promise<void> {
  const { consent } = grant;
  const counted = await client.query({
    name: 'ob_count_read',
    text: COUNT_READ,
    values: [consent.id, req.endpoint, req.accountId ?? '', utcToday(now), consent.frequencyPerDay],
  });
  if (counted.rows.length === 0) {
    throw new DomainError(
      'ACCESS_EXCEEDED',
      `The consent allows ${consent.frequencyPerDay} reads a day of this endpoint and account without the customer; send PSU-IP-Address when the customer asks`,
    );
  }
}

/**
 * Checks an AIS read against the consent named by the Consent-ID header and counts it when the
 * customer is not present. Returns the consent and the accounts the read covers. `client` must
 * not be inside a transaction of other writes: the count commits without waiting for the WAL
 * flush (COUNT_READ), which would then hold for those writes too.
 */
export async function checkAccess(tpp: Tpp, consentId: string | undefined, req: AisAccessRequest, client: Queryable = getPool()): Promise<AisGrant> {
  const now = new Date();
  const grant = await authoriseRead(tpp, consentId, req, now, client);
  if (!req.psuPresent) await countRead(grant, req, now, client);
  return grant;
}

/**
 * checkAccess, then `read` with the grant. A read changes nothing, so it runs beside the count
 * rather than after it (a counted read waits for one round trip less); when the count refuses,
 * its result is thrown away and the refusal wins. `client` as for checkAccess.
 */
export async function withAccess<T>(
  tpp: Tpp,
  consentId: string | undefined,
  req: AisAccessRequest,
  read: (grant: AisGrant) => Promise<T>,
  client: Queryable = getPool(),
): Promise<T> {
  const now = new Date();
  const grant = await authoriseRead(tpp, consentId, req, now, client);
  if (req.psuPresent) return read(grant);
  const [counted, result] = await Promise.allSettled([countRead(grant, req, now, client), read(grant)]);
  if (counted.status === 'rejected') throw counted.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** Seconds until the daily counts start again (midnight UTC): the Retry-After of ACCESS_EXCEEDED. */
export function secondsUntilCountsReset(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
