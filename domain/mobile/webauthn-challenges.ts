/**
 * WebAuthn challenges (webauthn_challenges) and the wire helpers both ceremonies share. Every
 * challenge is random (32 bytes), issued for one purpose (registration or authentication), expires
 * after WEBAUTHN_CHALLENGE_TTL_SECONDS and is used at most once: the ceremony that accepts it marks
 * it used in the statement that records its outcome. Expired rows are purged as new ones are issued.
 */
import { randomBytes } from 'node:crypto';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import { getPool, type Queryable } from '../db/pool';

export type ChallengePurpose = 'registration' | 'authentication';

/** 32 random bytes, as the options generators take them (their base64url form is the stored challenge). */
export function newChallengeBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array(randomBytes(32));
}

export async function storeChallenge(
  c: { challenge: string; purpose: ChallengePurpose; userId: string | null; userHandle: string | null; ttlSeconds: number },
  db: Queryable = getPool(),
): Promise<void> {
  await db.query({
    name: 'webauthn_challenge_store',
    text: `INSERT INTO webauthn_challenges (challenge, purpose, user_id, user_handle, expires_at)
           VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    values: [c.challenge, c.purpose, c.userId, c.userHandle, c.ttlSeconds],
  });
  purgeExpiredChallenges();
}

// At most one purge a minute per process, off the request's path; a failed purge waits for the next.
const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 5_000;
let lastPurge = 0;

function purgeExpiredChallenges(): void {
  const now = Date.now();
  if (now - lastPurge < PURGE_EVERY_MS) return;
  lastPurge = now;
  getPool()
    .query(
      `DELETE FROM webauthn_challenges WHERE challenge IN
         (SELECT challenge FROM webauthn_challenges WHERE expires_at < now() - interval '1 minute' LIMIT ${PURGE_BATCH})`,
    )
    .catch(() => undefined);
}

const BASE64_ANY = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * A binary field as a client sent it, in standard base64 or base64url (padded or not), as
 * unpadded base64url (what the verifier and the stored ids use); null when it is neither.
 */
export function toBase64Url(value: unknown): string | null {
  if (typeof value !== 'string' || !BASE64_ANY.test(value)) return null;
  const url = value.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  return url.length % 4 === 1 ? null : url;
}

/** The challenge a clientDataJSON (base64url) names, or null when it is not a client data object. */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const c = decodeClientDataJSON(clientDataJSON) as { challenge?: unknown };
    return typeof c?.challenge === 'string' && c.challenge.length > 0 && c.challenge.length <= 512 ? c.challenge : null;
  } catch {
    return null;
  }
}

/** A verifier's message for the debug log, without the values it may quote (challenges, ids). */
export function redact(message: string): string {
  return message.replace(/[A-Za-z0-9_+/=-]{16,}/g, '…').slice(0, 300);
}

/** Maps a verifier's error to a reason for the log (its message is kept, redacted, as detail). */
export function reasonOf(message: string, otherwise = 'assertion_refused'): string {
  if (/counter/i.test(message)) return 'counter_not_advanced';
  if (/origin/i.test(message)) return 'origin_mismatch';
  if (/RP ID/i.test(message)) return 'rp_id_mismatch';
  if (/response type/i.test(message)) return 'type_mismatch';
  if (/User verification (was )?required/i.test(message)) return 'user_not_verified';
  if (/User not present|User presence was required/i.test(message)) return 'user_not_present';
  if (/challenge/i.test(message)) return 'challenge_mismatch';
  return otherwise;
}
