/**
 * Signing in with a passkey (spec: POST /mobile/auth/passkey/verify; authentication rule 7): the
 * authentication options, then the assertion's verification and a biometric login session.
 *
 * The options never reveal whether an email belongs to a user: the same shape either way
 * (allowCredentials lists the user's passkeys when the email is known, else nothing, which lets
 * the device offer its discoverable credentials).
 *
 * Verification: the credential is looked up by id; the challenge quoted in clientDataJSON must be
 * an authentication challenge this server issued, unused and unexpired (and, when it was issued for
 * a known email, for the credential's owner); @simplewebauthn/server then checks type, challenge,
 * origin, RP ID, the user-present and user-verified flags, the ECDSA/EdDSA/RSA signature over
 * authenticatorData ‖ SHA-256(clientDataJSON) and the signature counter. The challenge is marked used
 * in the same statement that moves the stored counter forward (compare-and-swap on the counter
 * read), so the same assertion is never accepted twice, even concurrently. Every refusal carries a
 * reason for the debug log; callers answer all of them the same way.
 */
import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticatorTransport,
  type PublicKeyCredentialRequestOptionsJSON,
  type VerifiedAuthenticationResponse,
} from '@simplewebauthn/server';
import { startPasskeySession, type IssuedTokens } from '../auth/sessions';
import { normalizeEmail } from '../auth/users';
import { getPool } from '../db/pool';
import type { Environment } from '../platform/environment';
import { challengeOf, newChallengeBytes, reasonOf, redact, storeChallenge, toBase64Url } from './webauthn-challenges';
import type { PasskeyRefusal } from './passkeys';
import { webauthnSettings } from './webauthn-settings';

/** The assertion as the spec names its fields; each binary field in base64 or base64url. */
export interface PasskeyAssertion {
  credential_id: string;
  authenticator_data: string;
  client_data_json: string;
  signature: string;
  user_handle?: string | null;
}

export type PasskeyCheck = { ok: true; userId: string; passkeyId: string; credentialId: string } | PasskeyRefusal;
export type PasskeySignIn = { ok: true; tokens: IssuedTokens; credentialId: string; userId: string } | PasskeyRefusal;

const refuse = (reason: string, detail?: string): PasskeyRefusal => ({ ok: false, reason, ...(detail ? { detail } : {}) });

/**
 * Authentication options with a fresh authentication challenge (stored, single use). With an email
 * of a known user, allowCredentials lists that user's passkeys and the challenge is theirs alone;
 * otherwise the list is empty (discoverable credentials) and any registered passkey may answer.
 */
export async function passkeyAuthenticationOptions(email?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const s = webauthnSettings();
  let userId: string | null = null;
  let allow: { id: string; transports: AuthenticatorTransport[] }[] = [];
  if (email !== undefined && email.trim() !== '') {
    const { rows } = await getPool().query<{ user_id: string; credential_id: string | null; transports: string[] | null }>(
      `SELECT u.id AS user_id, c.credential_id, c.transports
         FROM users u LEFT JOIN passkey_credentials c ON c.user_id = u.id
        WHERE u.email = $1 ORDER BY c.created_at, c.id`,
      [normalizeEmail(email)],
    );
    userId = rows[0]?.user_id ?? null;
    allow = rows
      .filter((r) => r.credential_id !== null)
      .map((r) => ({ id: r.credential_id!, transports: (r.transports ?? []) as AuthenticatorTransport[] }));
  }
  const options = await generateAuthenticationOptions({
    rpID: s.rpID,
    allowCredentials: allow,
    userVerification: s.requireUserVerification ? 'required' : 'preferred',
    timeout: s.challengeTtlSeconds * 1000,
    challenge: newChallengeBytes(),
  });
  await storeChallenge({ challenge: options.challenge, purpose: 'authentication', userId, userHandle: null, ttlSeconds: s.challengeTtlSeconds });
  return { ...options, allowCredentials: options.allowCredentials ?? [] };
}

interface CredentialRow {
  id: string;
  user_id: string;
  user_handle: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  issued: boolean;
  usable: boolean | null;
  challenge_user: string | null;
}

/** Verifies an assertion and, when it holds, spends its challenge and moves the counter forward. */
export async function verifyPasskeyAssertion(input: PasskeyAssertion): Promise<PasskeyCheck> {
  const s = webauthnSettings();
  const credentialId = toBase64Url(input.credential_id);
  const authenticatorData = toBase64Url(input.authenticator_data);
  const clientDataJSON = toBase64Url(input.client_data_json);
  const signature = toBase64Url(input.signature);
  const userHandle = input.user_handle ? toBase64Url(input.user_handle) : undefined;
  if (!credentialId || !authenticatorData || !clientDataJSON || !signature || userHandle === null) return refuse('malformed_input');
  const challenge = challengeOf(clientDataJSON);
  if (!challenge) return refuse('malformed_client_data');

  const pool = getPool();
  // The two statements of a sign-in are named: prepared (parsed and planned) once per connection.
  const { rows } = await pool.query<CredentialRow>({
    name: 'passkey_assertion_lookup',
    text: `SELECT c.id, c.user_id, c.user_handle, c.public_key, c.counter, c.transports,
                  ch.challenge IS NOT NULL AS issued, ch.used_at IS NULL AND ch.expires_at > now() AS usable, ch.user_id AS challenge_user
             FROM passkey_credentials c
             LEFT JOIN webauthn_challenges ch ON ch.challenge = $2 AND ch.purpose = 'authentication'
            WHERE c.credential_id = $1`,
    values: [credentialId, challenge],
  });
  const row = rows[0];
  if (!row) return refuse('unknown_credential');
  if (!row.issued) return refuse('challenge_not_issued');
  if (!row.usable) return refuse('challenge_used_or_expired');
  if (row.challenge_user !== null && row.challenge_user !== row.user_id) return refuse('challenge_of_another_user');
  if (userHandle !== undefined && userHandle !== row.user_handle) return refuse('user_handle_mismatch');

  const counter = Number(row.counter);
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await verifyAuthenticationResponse({
      response: {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: { authenticatorData, clientDataJSON, signature, ...(userHandle ? { userHandle } : {}) },
        clientExtensionResults: {},
      },
      expectedChallenge: challenge,
      expectedOrigin: s.origins,
      expectedRPID: s.rpID,
      expectedType: 'webauthn.get',
      credential: { id: credentialId, publicKey: new Uint8Array(row.public_key), counter, transports: row.transports as AuthenticatorTransport[] },
      requireUserVerification: s.requireUserVerification,
    });
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    return refuse(reasonOf(message), redact(message));
  }
  if (!verified.verified) return refuse('signature_invalid');

  const info = verified.authenticationInfo;
  // One statement (one transaction) spends the challenge and moves the counter: the counter moves only
  // when this statement spent the challenge, and only from the value this check read. A concurrent
  // twin of the assertion finds the challenge used and changes nothing; a concurrent assertion with
  // another challenge that lost the counter race is refused (its challenge stays spent).
  const done = await pool.query({
    name: 'passkey_assertion_spend',
    text: `WITH spent AS (
             UPDATE webauthn_challenges SET used_at = now()
              WHERE challenge = $1 AND purpose = 'authentication' AND used_at IS NULL AND expires_at > now()
              RETURNING challenge)
           UPDATE passkey_credentials SET counter = $3, backed_up = $4, last_used_at = now()
            WHERE id = $2 AND counter = $5 AND EXISTS (SELECT 1 FROM spent)`,
    values: [challenge, row.id, info.newCounter, info.credentialBackedUp, counter],
  });
  if (done.rowCount !== 1) return refuse('challenge_used_or_counter_moved');
  return { ok: true, userId: row.user_id, passkeyId: row.id, credentialId };
}

/**
 * The whole sign-in: a verified assertion starts a login session exactly like a password login
 * (short-lived JWT bound to a server session, plus a refresh token), marked as a passkey session,
 * so its principal is biometric, and bound to the passkey, whose deletion ends it.
 */
export async function signInWithPasskey(input: PasskeyAssertion, environment: Environment): Promise<PasskeySignIn> {
  const check = await verifyPasskeyAssertion(input);
  if (!check.ok) return check;
  const tokens = await startPasskeySession(check.userId, environment, check.passkeyId);
  // Deleted since the check: refused like any unknown credential.
  if (!tokens) return refuse('unknown_credential');
  return { ok: true, tokens, credentialId: check.credentialId, userId: check.userId };
}
