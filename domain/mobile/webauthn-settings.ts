/**
 * The WebAuthn relying-party settings of the passkey area (WEBAUTHN_* in domain/platform/config.ts),
 * checked before any ceremony: a relying party ID that is a host name, and origins that can
 * actually carry credentials scoped to it (an http(s) origin on the RP ID or a subdomain of it, or
 * an Android app's apk-key-hash origin). A setting that cannot work is PASSKEYS_NOT_CONFIGURED
 * (503: nothing was done), never a refusal that looks like the user's fault.
 */
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';

export interface WebAuthnSettings {
  rpID: string;
  rpName: string;
  origins: string[];
  requireUserVerification: boolean;
  challengeTtlSeconds: number;
}

const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const ANDROID_ORIGIN = /^android:apk-key-hash:[A-Za-z0-9_-]{20,}$/;
const MAX_TTL_SECONDS = 3600;

const notConfigured = (why: string) => new DomainError('PASSKEYS_NOT_CONFIGURED', `Passkeys are not configured correctly: ${why}`);

/** Whether an origin may carry credentials of this relying party (WebAuthn §13.4.9: RP ID is the host or a registrable suffix). */
function originFits(origin: string, rpID: string): boolean {
  if (ANDROID_ORIGIN.test(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin || (url.protocol !== 'https:' && url.protocol !== 'http:')) return false;
  return url.hostname === rpID || url.hostname.endsWith(`.${rpID}`);
}

function check(cfg: ReturnType<typeof loadConfig>): WebAuthnSettings {
  const rpID = cfg.webauthnRpId.toLowerCase();
  if (!HOST.test(rpID)) throw notConfigured(`WEBAUTHN_RP_ID "${cfg.webauthnRpId}" is not a host name`);
  if (!cfg.webauthnRpName) throw notConfigured('WEBAUTHN_RP_NAME is empty');
  if (cfg.webauthnOrigins.length === 0) throw notConfigured('WEBAUTHN_ORIGINS lists no origin');
  for (const o of cfg.webauthnOrigins) {
    if (!originFits(o, rpID)) {
      throw notConfigured(`WEBAUTHN_ORIGINS has "${o}", which is neither an http(s) origin on ${rpID} (or a subdomain) nor android:apk-key-hash:<hash>`);
    }
  }
  const ttl = cfg.webauthnChallengeTtlSeconds;
  if (ttl < 1 || ttl > MAX_TTL_SECONDS) throw notConfigured(`WEBAUTHN_CHALLENGE_TTL_SECONDS must be between 1 and ${MAX_TTL_SECONDS}, got ${ttl}`);
  return {
    rpID,
    rpName: cfg.webauthnRpName,
    origins: [...cfg.webauthnOrigins],
    requireUserVerification: cfg.webauthnRequireUserVerification,
    challengeTtlSeconds: ttl,
  };
}

// Followed on every ceremony (tests and operators change the environment), but loaded and checked
// only when one of the variables changed: loadConfig reads every setting, and sign-in is hot.
const VARIABLES = ['WEBAUTHN_RP_ID', 'WEBAUTHN_RP_NAME', 'WEBAUTHN_ORIGINS', 'WEBAUTHN_REQUIRE_UV', 'WEBAUTHN_CHALLENGE_TTL_SECONDS'];
let cached: { key: string; settings: WebAuthnSettings } | undefined;

export function webauthnSettings(): WebAuthnSettings {
  const key = VARIABLES.map((v) => process.env[v] ?? '\u0000').join('\u0001');
  if (cached?.key !== key) cached = { key, settings: check(loadConfig()) };
  return cached.settings;
}
