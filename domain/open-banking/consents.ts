/**
 * Account-information consents (Berlin Group NextGenPSD2, docs/open-banking.md). A TPP asks; the
 * customer authorises with SCA (domain/open-banking/sca.ts); reads are checked against it
 * (domain/open-banking/access.ts). Timers (domain/open-banking/consent-workflow.ts) reject a consent
 * left unauthorised and expire a valid one at the end of its validUntil day.
 *
 * Statuses: received → valid → rejected | revokedByPsu | expired | terminatedByTpp. The last four
 * are final: setConsentStatus, the only writer, never moves a final consent.
 */
import { ibanProblem } from '../../iso20022/iban';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { redirectUriAllowed } from './certificates';
import type { Tpp } from './tpps';

export const CONSENT_STATUSES = ['received', 'valid', 'rejected', 'revokedByPsu', 'expired', 'terminatedByTpp'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
export const FINAL_CONSENT_STATUSES: readonly ConsentStatus[] = ['rejected', 'revokedByPsu', 'expired', 'terminatedByTpp'];

export interface AccountReference {
  iban: string;
  currency?: string;
}

/** The requested access: named accounts per service, or one of the bank-wide forms. */
export interface ConsentAccess {
  accounts?: AccountReference[];
  balances?: AccountReference[];
  transactions?: AccountReference[];
  availableAccounts?: 'allAccounts' | 'allAccountsWithOwnerName';
  availableAccountsWithBalance?: 'allAccounts' | 'allAccountsWithOwnerName';
  allPsd2?: 'allAccounts' | 'allAccountsWithOwnerName';
}

export interface ConsentRequest {
  access: ConsentAccess;
  recurringIndicator: boolean;
  validUntil: string;
  frequencyPerDay: number;
  combinedServiceIndicator?: boolean;
}

export interface Consent {
  id: string;
  environment: Environment;
  tppId: string;
  userId: string | null;
  psuId: string | null;
  access: ConsentAccess;
  recurring: boolean;
  validUntil: string;
  frequencyPerDay: number;
  status: ConsentStatus;
  workflowId: string;
  redirectUri: string | null;
  nokRedirectUri: string | null;
  authorisedAt: Date | null;
  statusChangedAt: Date;
  createdAt: Date;
}

interface Row {
  id: string;
  environment: Environment;
  tpp_id: string;
  user_id: string | null;
  psu_id: string | null;
  access: ConsentAccess;
  recurring: boolean;
  valid_until: string;
  frequency_per_day: number;
  status: ConsentStatus;
  workflow_id: string;
  redirect_uri: string | null;
  nok_redirect_uri: string | null;
  authorised_at: Date | null;
  status_changed_at: Date;
  created_at: Date;
}

// valid_until is read as text ('YYYY-MM-DD'): a DATE has no time zone to go wrong in.
const SELECT = `SELECT id, environment, tpp_id, user_id, psu_id, access, recurring, valid_until::text AS valid_until, frequency_per_day, status,
  workflow_id, redirect_uri, nok_redirect_uri, authorised_at, status_changed_at, created_at FROM ob_consents`;

function toConsent(r: Row): Consent {
  return {
    id: r.id,
    environment: r.environment,
    tppId: r.tpp_id,
    userId: r.user_id,
    psuId: r.psu_id,
    access: r.access,
    recurring: r.recurring,
    validUntil: r.valid_until,
    frequencyPerDay: r.frequency_per_day,
    status: r.status,
    workflowId: r.workflow_id,
    redirectUri: r.redirect_uri,
    nokRedirectUri: r.nok_redirect_uri,
    authorisedAt: r.authorised_at,
    statusChangedAt: r.status_changed_at,
    createdAt: r.created_at,
  };
}

export const consentWorkflowId = (id: string) => `ob-consent-${id}`;

/** The longest a consent may run before the customer authorises again (RTS 2018/389 Art. 10: 180 days). */
export function maxConsentDays(): number {
  const d = Number.parseInt(process.env.OPEN_BANKING_CONSENT_MAX_DAYS ?? '180', 10);
  return Number.isFinite(d) && d > 0 ? d : 180;
}

/** Reads without the customer per day the platform grants at most (RTS Art. 36(5): 4 unless agreed). */
export function maxFrequencyPerDay(): number {
  const d = Number.parseInt(process.env.OPEN_BANKING_MAX_FREQUENCY_PER_DAY ?? '4', 10);
  return Number.isFinite(d) && d > 0 ? d : 4;
}

const formatError = (message: string, pointer: string) => new DomainError('FORMAT_ERROR', message, pointer);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FORMS = ['availableAccounts', 'availableAccountsWithBalance', 'allPsd2'] as const;
const LISTS = ['accounts', 'balances', 'transactions'] as const;

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * The request's terms as the platform grants them: validUntil no earlier than today and capped at
 * maxConsentDays from today (9999-12-31, "as long as possible", becomes that cap), frequencyPerDay
 * capped at maxFrequencyPerDay, a one-off consent (recurringIndicator false) read once a day.
 */
export function grantedTerms(r: ConsentRequest, now: Date): { access: ConsentAccess; validUntil: string; frequencyPerDay: number } {
  const today = utcDay(now);
  if (!DATE.test(r.validUntil) || Number.isNaN(Date.parse(`${r.validUntil}T00:00:00Z`)) || utcDay(new Date(`${r.validUntil}T00:00:00Z`)) !== r.validUntil) {
    throw formatError('validUntil must be a date (YYYY-MM-DD)', '/validUntil');
  }
  if (r.validUntil < today) throw formatError('validUntil is in the past', '/validUntil');
  const cap = utcDay(new Date(Date.parse(`${today}T00:00:00Z`) + maxConsentDays() * 86_400_000));
  if (!Number.isInteger(r.frequencyPerDay) || r.frequencyPerDay < 1) throw formatError('frequencyPerDay must be a whole number of at least 1', '/frequencyPerDay');
  if (!r.recurringIndicator && r.frequencyPerDay !== 1) throw formatError('a one-off consent (recurringIndicator false) has frequencyPerDay 1', '/frequencyPerDay');
  return { access: checkAccess(r.access), validUntil: r.validUntil < cap ? r.validUntil : cap, frequencyPerDay: Math.min(r.frequencyPerDay, maxFrequencyPerDay()) };
}

/** Exactly one form of access: account lists (named by IBAN), or one bank-wide form. */
function checkAccess(a: ConsentAccess): ConsentAccess {
  const forms = FORMS.filter((f) => a[f] !== undefined);
  const lists = LISTS.filter((l) => a[l] !== undefined);
  if (forms.length > 1 || (forms.length === 1 && lists.length > 0)) throw formatError('give either account lists or one of availableAccounts, availableAccountsWithBalance, allPsd2', '/access');
  if (forms.length === 1) return { [forms[0]]: a[forms[0]] };
  const named = lists.flatMap((l) => a[l] ?? []);
  // A bank-offered consent (empty lists: the customer picks at the bank) is not offered here.
  if (named.length === 0) throw formatError('name at least one account (by IBAN) or use availableAccounts / allPsd2', '/access');
  const out: ConsentAccess = {};
  for (const l of lists) {
    out[l] = (a[l] ?? []).map((ref, i) => {
      const iban = String(ref.iban ?? '').replace(/\s+/g, '').toUpperCase();
      const problem = ibanProblem(iban);
      if (problem) throw formatError(`${iban || 'iban'}: ${problem}`, `/access/${l}/${i}/iban`);
      return { iban, ...(ref.currency ? { currency: ref.currency } : {}) };
    });
  }
  return out;
}

/**
 * Records a consent (status received) for the TPP. An X-Request-ID the TPP has used before returns
 * that consent and records nothing. The caller starts its timer workflow.
 */
export async function insertConsent(
  tpp: Tpp,
  r: ConsentRequest,
  headers: { requestId: string; psuId: string | null; redirectUri: string | null; nokRedirectUri: string | null },
  now = new Date(),
  c: Queryable = getPool(),
): Promise<{ consent: Consent; created: boolean }> {
  // The SCA page sends the customer's browser to these: only https URLs on the TPP's own domains.
  for (const [uri, name, shown] of [
    [headers.redirectUri, 'tpp-redirect-uri', 'TPP-Redirect-URI'],
    [headers.nokRedirectUri, 'tpp-nok-redirect-uri', 'TPP-Nok-Redirect-URI'],
  ] as const) {
    if (uri !== null && !redirectUriAllowed(uri, tpp.redirectDomains)) {
      const where = tpp.redirectDomains.length ? `one of the TPP certificate's domains (${tpp.redirectDomains.join(', ')})` : "a domain the TPP's certificate names (it names none)";
      throw formatError(`${shown} must be an https URL on ${where}`, `/headers/${name}`);
    }
  }
  const terms = grantedTerms(r, now);
  const id = newId('consent');
  const { rowCount } = await c.query(
    `INSERT INTO ob_consents (id, environment, tpp_id, psu_id, access, recurring, valid_until, frequency_per_day, request_id, workflow_id, redirect_uri, nok_redirect_uri)
     VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8, $9, $10, $11, $12)
     ON CONFLICT (tpp_id, request_id) DO NOTHING`,
    [id, tpp.environment, tpp.id, headers.psuId, JSON.stringify(terms.access), r.recurringIndicator, terms.validUntil, terms.frequencyPerDay, headers.requestId, consentWorkflowId(id), headers.redirectUri, headers.nokRedirectUri],
  );
  const created = rowCount === 1;
  const consent = created ? await readConsent(id, c) : await consentByRequest(tpp, headers.requestId, c);
  return { consent: consent!, created };
}

export async function readConsent(id: string, c: Queryable = getPool()): Promise<Consent | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE id = $1`, [id]);
  return rows[0] ? toConsent(rows[0]) : null;
}

async function consentByRequest(tpp: Tpp, requestId: string, c: Queryable): Promise<Consent | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE tpp_id = $1 AND request_id = $2`, [tpp.id, requestId]);
  return rows[0] ? toConsent(rows[0]) : null;
}

/** The TPP's own consent, else 403 CONSENT_UNKNOWN (another TPP's consent is unknown to this one). */
export async function tppConsent(tpp: Tpp, id: string, c: Queryable = getPool()): Promise<Consent> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE id = $1 AND tpp_id = $2 AND environment = $3`, [id, tpp.id, tpp.environment]);
  if (!rows[0]) throw new DomainError('CONSENT_UNKNOWN', 'The Consent-ID does not match a consent of this TPP');
  return toConsent(rows[0]);
}

export async function lockConsent(c: Queryable, id: string): Promise<Consent | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ? toConsent(rows[0]) : null;
}

/**
 * The one writer of a consent's status: moves it to `to` only from one of `from` (never from a
 * final status). Returns the consent after the change, or null when it was not in `from`.
 */
export async function setConsentStatus(c: Queryable, id: string, from: readonly ConsentStatus[], to: ConsentStatus, extra: { userId?: string } = {}): Promise<Consent | null> {
  const allowed = from.filter((s) => !FINAL_CONSENT_STATUSES.includes(s));
  const { rows } = await c.query<{ id: string }>(
    `UPDATE ob_consents SET status = $3, status_changed_at = now(),
            user_id = coalesce($4, user_id), authorised_at = CASE WHEN $3 = 'valid' THEN now() ELSE authorised_at END
      WHERE id = $1 AND status = ANY($2::text[]) RETURNING id`,
    [id, allowed, to, extra.userId ?? null],
  );
  return rows[0] ? readConsent(id, c) : null;
}

/** The instant a valid consent ends: the end of its validUntil day (UTC). */
export function consentEndsAt(c: Pick<Consent, 'validUntil'>): Date {
  return new Date(Date.parse(`${c.validUntil}T00:00:00Z`) + 86_400_000);
}

/** The status a reader sees: a valid consent past its day is expired even before its timer ran. */
export function effectiveStatus(c: Pick<Consent, 'status' | 'validUntil'>, now = new Date()): ConsentStatus {
  return c.status === 'valid' && now >= consentEndsAt(c) ? 'expired' : c.status;
}

const CUSTOMER_CONSENT_SELECT = `SELECT c.id, c.environment, c.tpp_id, c.user_id, c.psu_id, c.access, c.recurring, c.valid_until::text AS valid_until, c.frequency_per_day, c.status,
            c.workflow_id, c.redirect_uri, c.nok_redirect_uri, c.authorised_at, c.status_changed_at, c.created_at, t.name AS tpp_name
       FROM ob_consents c JOIN ob_tpps t ON t.id = c.tpp_id
      WHERE c.user_id = $1 AND c.environment = $2`;

/** Consents the customer gave, newest first (their own view: which TPPs can read what). */
export async function customerConsents(userId: string, environment: Environment, c: Queryable = getPool()): Promise<Array<Consent & { tppName: string }>> {
  const { rows } = await c.query<Row & { tpp_name: string }>(`${CUSTOMER_CONSENT_SELECT} ORDER BY c.created_at DESC, c.id DESC LIMIT 200`, [userId, environment]);
  return rows.map((r) => ({ ...toConsent(r), tppName: r.tpp_name }));
}

/** One consent the customer gave; another customer's (or environment's) is 404 NOT_FOUND, as revoking it is. */
export async function customerConsent(userId: string, environment: Environment, consentId: string, c: Queryable = getPool()): Promise<Consent & { tppName: string }> {
  const { rows } = await c.query<Row & { tpp_name: string }>(`${CUSTOMER_CONSENT_SELECT} AND c.id = $3`, [userId, environment, consentId]);
  if (!rows[0]) throw new DomainError('NOT_FOUND', 'Consent not found');
  return { ...toConsent(rows[0]), tppName: rows[0].tpp_name };
}

/** The accounts a consent covers, with what it allows on each. */
export async function consentAccounts(consentId: string, c: Queryable = getPool()) {
  const { rows } = await c.query<{ account_id: string; iban: string; accounts: boolean; balances: boolean; transactions: boolean }>(
    `SELECT ca.account_id, i.iban, ca.accounts, ca.balances, ca.transactions FROM ob_consent_accounts ca
       JOIN account_ibans i ON i.account_id = ca.account_id WHERE ca.consent_id = $1 ORDER BY i.iban`,
    [consentId],
  );
  return rows;
}
