/**
 * SCA authorisations of consents and payments (Berlin Group authorisation sub-resources). A TPP
 * starts one; the customer finishes it on the platform: on a platform page after signing in
 * (REDIRECT), or in the mobile app after a push (DECOUPLED, when the TPP prefers it and names the
 * customer with PSU-ID). What approval does to the consent or payment is domain/open-banking/sca.ts.
 *
 * scaStatus: received (started by the TPP) → started (decoupled: the push is out) → finalised |
 * failed; an authorisation past its time limit fails. Final statuses never change.
 */
import { findUserByEmail } from '../auth/users';
import { getPool, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { Tpp } from './tpps';

export const SCA_STATUSES = ['received', 'psuIdentified', 'psuAuthenticated', 'scaMethodSelected', 'started', 'unconfirmed', 'finalised', 'failed', 'exempted'] as const;
export type ScaStatus = (typeof SCA_STATUSES)[number];
export const FINAL_SCA_STATUSES: readonly ScaStatus[] = ['finalised', 'failed', 'exempted'];

export type ScaSubjectKind = 'consent' | 'payment';
export interface ScaSubject {
  kind: ScaSubjectKind;
  id: string;
}

export interface Authorisation {
  id: string;
  environment: Environment;
  tppId: string;
  subject: ScaSubject;
  scaApproach: 'REDIRECT' | 'DECOUPLED';
  scaStatus: ScaStatus;
  psuId: string | null;
  userId: string | null;
  scaMethod: string | null;
  expiresAt: Date;
  createdAt: Date;
}

interface Row {
  id: string;
  environment: Environment;
  tpp_id: string;
  subject_kind: ScaSubjectKind;
  subject_id: string;
  sca_approach: 'REDIRECT' | 'DECOUPLED';
  sca_status: ScaStatus;
  psu_id: string | null;
  user_id: string | null;
  sca_method: string | null;
  expires_at: Date;
  created_at: Date;
}

export function toAuthorisation(r: Row): Authorisation {
  return {
    id: r.id,
    environment: r.environment,
    tppId: r.tpp_id,
    subject: { kind: r.subject_kind, id: r.subject_id },
    scaApproach: r.sca_approach,
    // Past its time limit an open authorisation has failed, whether or not the timer has run yet.
    scaStatus: !FINAL_SCA_STATUSES.includes(r.sca_status) && r.expires_at.getTime() <= Date.now() ? 'failed' : r.sca_status,
    psuId: r.psu_id,
    userId: r.user_id,
    scaMethod: r.sca_method,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
  };
}

/** How long a customer has to complete SCA (OPEN_BANKING_SCA_TIMEOUT_SECONDS, default 15 minutes). */
export function scaTimeoutMs(): number {
  const s = Number.parseInt(process.env.OPEN_BANKING_SCA_TIMEOUT_SECONDS ?? '900', 10);
  return (Number.isFinite(s) && s > 0 ? s : 900) * 1000;
}

/**
 * Starts an authorisation of a consent or payment the caller has checked to be the TPP's and to
 * await SCA. Decoupled when the TPP prefers it and names the customer: the customer (if PSU-ID is a
 * customer's email in this environment's platform) gets an `open_banking.sca_requested` event, which
 * becomes a notification pushed to their devices. An unknown PSU-ID is answered the same way (nothing
 * tells the TPP whether it is a customer) and the authorisation fails at its time limit.
 */
export async function startAuthorisation(
  tpp: Tpp,
  subject: ScaSubject,
  opts: { decoupledPreferred: boolean; psuId: string | null; description: string },
  c: Queryable = getPool(),
): Promise<Authorisation> {
  const psuId = opts.psuId?.trim() || null;
  const decoupled = opts.decoupledPreferred && psuId !== null;
  const psu = psuId !== null ? await findUserByEmail(psuId) : null;
  // The authorisation belongs to the customer who owns the subject's account(s) from the start, so
  // only their session decides it; a subject naming no account (a bank-wide consent) belongs to the
  // PSU-ID's customer, else to whoever signs in and decides first.
  const owned = await subjectOwner(tpp.environment, subject, c);
  const owner = owned === undefined ? (psu?.id ?? null) : owned;
  // The push goes only to the owner: a PSU-ID naming someone else is answered alike and fails at the limit.
  const user = decoupled && psu && (owner === null || psu.id === owner) ? psu : null;
  const id = newId('obauth');
  const { rows } = await c.query<Row>(
    `INSERT INTO ob_authorisations (id, environment, tpp_id, subject_kind, subject_id, sca_approach, sca_status, psu_id, user_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10::float8 / 1000)) RETURNING *`,
    [id, tpp.environment, tpp.id, subject.kind, subject.id, decoupled ? 'DECOUPLED' : 'REDIRECT', decoupled ? 'started' : 'received', psuId, owner ?? user?.id ?? null, scaTimeoutMs()],
  );
  if (user) {
    await writeOutboxEvent(c, {
      type: 'open_banking.sca_requested',
      environment: tpp.environment,
      userId: user.id,
      aggregateType: 'ob_authorisation',
      aggregateId: id,
      data: { authorisation_id: id, tpp_name: tpp.name, subject_kind: subject.kind, subject_id: subject.id, description: opts.description, expires_at: rows[0].expires_at.toISOString() },
    });
  }
  return toAuthorisation(rows[0]);
}

/**
 * The customer a subject belongs to: a payment's debtor account's owner; the owner of the accounts
 * a consent names (null when they are no customer's, or several customers'); undefined when the
 * subject names no account (bank-wide consents), so the PSU decides who it is.
 */
async function subjectOwner(environment: Environment, subject: ScaSubject, c: Queryable): Promise<string | null | undefined> {
  if (subject.kind === 'payment') {
    const { rows } = await c.query<{ user_id: string | null }>('SELECT user_id FROM ob_payments WHERE id = $1', [subject.id]);
    return rows[0]?.user_id ?? null;
  }
  const { rows } = await c.query<{ ibans: string[] | null }>(
    `SELECT array_agg(DISTINCT r->>'iban') FILTER (WHERE r ? 'iban') AS ibans
       FROM ob_consents, jsonb_array_elements(coalesce(access->'accounts', '[]') || coalesce(access->'balances', '[]') || coalesce(access->'transactions', '[]')) r
      WHERE id = $1`,
    [subject.id],
  );
  const ibans = rows[0]?.ibans ?? [];
  if (ibans.length === 0) return undefined;
  const owners = await c.query<{ user_id: string }>(
    'SELECT DISTINCT a.user_id FROM account_ibans i JOIN accounts a ON a.id = i.account_id WHERE i.iban = ANY($1::text[]) AND a.environment = $2',
    [ibans, environment],
  );
  return owners.rows.length === 1 ? owners.rows[0].user_id : null;
}

/**
 * The Berlin Group start-authorisation body. `selfPath` is the authorisation resource's path under
 * the API; `base` the platform's public address.
 */
export function authorisationBody(a: Authorisation, base: string, selfPath: string) {
  return {
    scaStatus: a.scaStatus,
    authorisationId: a.id,
    scaApproach: a.scaApproach,
    ...(a.scaApproach === 'DECOUPLED' ? { psuMessage: 'Please confirm in your banking app.' } : {}),
    _links: {
      ...(a.scaApproach === 'REDIRECT' ? { scaRedirect: { href: `${base}/open-banking/sca/${a.id}` } } : {}),
      scaStatus: { href: `${base}${selfPath}` },
    },
  };
}

export async function listAuthorisationIds(tpp: Tpp, subject: ScaSubject, c: Queryable = getPool()): Promise<string[]> {
  const { rows } = await c.query<{ id: string }>(
    'SELECT id FROM ob_authorisations WHERE tpp_id = $1 AND subject_kind = $2 AND subject_id = $3 ORDER BY created_at, id',
    [tpp.id, subject.kind, subject.id],
  );
  return rows.map((r) => r.id);
}

/** The TPP's authorisation of that subject, else 404 RESOURCE_UNKNOWN. */
export async function getAuthorisation(tpp: Tpp, subject: ScaSubject, authorisationId: string, c: Queryable = getPool()): Promise<Authorisation> {
  const { rows } = await c.query<Row>('SELECT * FROM ob_authorisations WHERE id = $1 AND tpp_id = $2 AND subject_kind = $3 AND subject_id = $4', [
    authorisationId,
    tpp.id,
    subject.kind,
    subject.id,
  ]);
  if (!rows[0]) throw new DomainError('RESOURCE_UNKNOWN', 'No such authorisation of this resource');
  return toAuthorisation(rows[0]);
}

/** An authorisation by id alone, locked (the customer's decision), or null. */
export async function lockAuthorisation(c: Queryable, id: string): Promise<Authorisation | null> {
  const { rows } = await c.query<Row>('SELECT * FROM ob_authorisations WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ? toAuthorisation(rows[0]) : null;
}

export async function readAuthorisation(id: string, c: Queryable = getPool()): Promise<Authorisation | null> {
  const { rows } = await c.query<Row>('SELECT * FROM ob_authorisations WHERE id = $1', [id]);
  return rows[0] ? toAuthorisation(rows[0]) : null;
}

/** Ends an open authorisation (finalised or failed), recording who did it and how. */
export async function finishAuthorisation(c: Queryable, id: string, status: 'finalised' | 'failed', by: { userId: string | null; method: string | null }): Promise<void> {
  await c.query(
    `UPDATE ob_authorisations SET sca_status = $2, user_id = coalesce($3, user_id), sca_method = $4, updated_at = now()
      WHERE id = $1 AND sca_status NOT IN ('finalised', 'failed', 'exempted')`,
    [id, status, by.userId, by.method],
  );
}

/** Open authorisations of a subject fail (the subject ended: consent rejected, payment cancelled). */
export async function failOpenAuthorisations(c: Queryable, subject: ScaSubject): Promise<void> {
  await c.query(
    `UPDATE ob_authorisations SET sca_status = 'failed', updated_at = now()
      WHERE subject_kind = $1 AND subject_id = $2 AND sca_status NOT IN ('finalised', 'failed', 'exempted')`,
    [subject.kind, subject.id],
  );
}
