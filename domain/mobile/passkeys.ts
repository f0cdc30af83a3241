/**
 * Passkeys (WebAuthn / FIDO2 credentials) of the mobile app: registration by a signed-in user,
 * the user's list, and removal. Signing in with one is domain/mobile/passkey-sign-in.ts.
 *
 * Every check of a ceremony is @simplewebauthn/server's (challenge, origin, RP ID, type, user
 * presence and verification flags, attestation, signature, counter); this module supplies what it
 * cannot know: which challenges the server issued (single use, expiring: ./webauthn-challenges.ts), to whom,
 * and the stored credentials. A refused registration is one generic refusal for the caller; the
 * reason is returned for the debug log only.
 */
import { randomBytes } from 'node:crypto';
import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  type VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Principal } from '../auth/principal';
import { revokePasskeySessions } from '../auth/sessions';
import { getPool, withTransaction } from '../db/pool';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { challengeOf, newChallengeBytes, reasonOf, redact, storeChallenge } from './webauthn-challenges';
import { webauthnSettings } from './webauthn-settings';

/** A user's passkeys are few (one per device or password manager); the list bounds excludeCredentials. */
export const MAX_PASSKEYS_PER_USER = 20;

/** The transports WebAuthn defines; anything else a client reports is dropped. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

export interface Passkey {
  id: string;
  name: string;
  credentialId: string;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type PasskeyRefusal = { ok: false; reason: string; detail?: string };
export type PasskeyRegistration = { ok: true; passkey: Passkey } | PasskeyRefusal;

const PASSKEY_COLUMNS = `id, name, credential_id AS "credentialId", transports, device_type AS "deviceType",
  backed_up AS "backedUp", created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

const refuse = (reason: string, detail?: string): PasskeyRefusal => ({ ok: false, reason, ...(detail ? { detail } : {}) });

/**
 * Creation options for a new passkey of the caller: a fresh registration challenge (stored, single
 * use), the user's existing credentials excluded, a discoverable credential preferred, and user
 * verification required when WEBAUTHN_REQUIRE_UV is on. The WebAuthn user handle is random and
 * the same for all of a user's passkeys (never the email or the internal id).
 */
/**
 * Registering a passkey needs a login session (password or passkey), not an API key: a leaked key
 * must not be able to mint biometric sessions, which unlock passkey-gated payments.
 */
function requireLoginSession(p: Principal): void {
  if (p.kind !== 'session') throw new DomainError('LOGIN_SESSION_REQUIRED', 'Register passkeys with a login access token (POST /api/auth/login), not an API key');
}

export async function passkeyRegistrationOptions(p: Principal): Promise<PublicKeyCredentialCreationOptionsJSON> {
  requireLoginSession(p);
  const s = webauthnSettings();
  const pool = getPool();
  const { rows: users } = await pool.query<{ name: string; email: string }>('SELECT name, email FROM users WHERE id = $1', [p.userId]);
  if (!users[0]) throw new DomainError('NOT_FOUND', 'User not found');
  const { rows: existing } = await pool.query<{ credential_id: string; transports: string[]; user_handle: string }>(
    'SELECT credential_id, transports, user_handle FROM passkey_credentials WHERE user_id = $1 ORDER BY created_at, id',
    [p.userId],
  );
  if (existing.length >= MAX_PASSKEYS_PER_USER) {
    throw new DomainError('PASSKEY_LIMIT_REACHED', `A user can register at most ${MAX_PASSKEYS_PER_USER} passkeys; remove one first`);
  }
  const userHandle = existing[0]?.user_handle ?? randomBytes(32).toString('base64url');
  const options = await generateRegistrationOptions({
    rpName: s.rpName,
    rpID: s.rpID,
    userName: users[0].email,
    userDisplayName: users[0].name,
    userID: isoBase64URL.toBuffer(userHandle),
    challenge: newChallengeBytes(),
    timeout: s.challengeTtlSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: s.requireUserVerification ? 'required' : 'preferred' },
  });
  await storeChallenge({ challenge: options.challenge, purpose: 'registration', userId: p.userId, userHandle, ttlSeconds: s.challengeTtlSeconds });
  return options;
}

/**
 * Verifies the authenticator's attestation (RegistrationResponseJSON) against a registration
 * challenge this user was issued (unused, unexpired) and stores the credential: its COSE public
 * key, signature counter, transports and backup state. The challenge is spent in the same
 * transaction; a credential id already registered (by anyone) is refused.
 */
export async function registerPasskey(p: Principal, input: { response: RegistrationResponseJSON; name?: string }): Promise<PasskeyRegistration> {
  requireLoginSession(p);
  const s = webauthnSettings();
  const response = input.response;
  const clientDataJSON = response?.response?.clientDataJSON;
  const challenge = typeof clientDataJSON === 'string' ? challengeOf(clientDataJSON) : null;
  if (!challenge) return refuse('malformed_client_data');
  const { rows } = await getPool().query<{ user_handle: string; usable: boolean }>(
    `SELECT user_handle, used_at IS NULL AND expires_at > now() AS usable
       FROM webauthn_challenges WHERE challenge = $1 AND purpose = 'registration' AND user_id = $2`,
    [challenge, p.userId],
  );
  if (!rows[0]) return refuse('challenge_not_issued');
  if (!rows[0].usable) return refuse('challenge_used_or_expired');

  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: s.origins,
      expectedRPID: s.rpID,
      expectedType: 'webauthn.create',
      requireUserVerification: s.requireUserVerification,
    });
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    return refuse(reasonOf(message, 'attestation_refused'), redact(message));
  }
  if (!verified.verified) return refuse('attestation_invalid');
  const info = verified.registrationInfo;
  const transports = [...new Set((info.credential.transports ?? response.response.transports ?? []).filter((t) => TRANSPORTS.has(t)))];
  const name = input.name?.trim() || 'Passkey';

  return withTransaction(async (tx): Promise<PasskeyRegistration> => {
    const spent = await tx.query(
      `UPDATE webauthn_challenges SET used_at = now()
        WHERE challenge = $1 AND purpose = 'registration' AND user_id = $2 AND used_at IS NULL AND expires_at > now()`,
      [challenge, p.userId],
    );
    if (spent.rowCount !== 1) return refuse('challenge_used_or_expired');
    // One registration at a time per user, so the limit holds under concurrent ceremonies.
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [p.userId]);
    const { rows: count } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM passkey_credentials WHERE user_id = $1', [p.userId]);
    if (count[0].n >= MAX_PASSKEYS_PER_USER) return refuse('passkey_limit_reached');
    const { rows: inserted } = await tx.query<Passkey>(
      `INSERT INTO passkey_credentials (id, user_id, credential_id, user_handle, name, public_key, counter, transports, device_type, backed_up, aaguid)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${PASSKEY_COLUMNS}`,
      [
        newId('pk'),
        p.userId,
        info.credential.id,
        rows[0].user_handle,
        name,
        Buffer.from(info.credential.publicKey),
        info.credential.counter,
        transports,
        info.credentialDeviceType,
        info.credentialBackedUp,
        info.aaguid,
      ],
    );
    if (!inserted[0]) return refuse('credential_already_registered');
    return { ok: true, passkey: inserted[0] };
  });
}

/** The caller's passkeys, oldest first. */
export async function listPasskeys(p: Principal): Promise<Passkey[]> {
  const { rows } = await getPool().query<Passkey>(
    `SELECT ${PASSKEY_COLUMNS} FROM passkey_credentials WHERE user_id = $1 ORDER BY created_at, id`,
    [p.userId],
  );
  return rows;
}

/**
 * Removes one of the caller's passkeys and ends every session it started (refresh tokens included),
 * in one transaction: what the passkey unlocked (biometric, passkey-gated payments) stops with it.
 * Another user's (or none) is NOT_FOUND.
 */
export async function deletePasskey(p: Principal, id: string): Promise<void> {
  await withTransaction(async (c) => {
    const r = await c.query('DELETE FROM passkey_credentials WHERE id = $1 AND user_id = $2', [id, p.userId]);
    if (r.rowCount !== 1) throw new DomainError('NOT_FOUND', 'Passkey not found');
    await revokePasskeySessions(c, id);
  });
}
