/**
 * Signed, expiring download links for SDK packages. The link is the credential (the download route
 * is public): signature = HMAC-SHA256(server secret, "sdk-package:<id>:<expires>") in base64url,
 * expires a Unix time in seconds. A wrong signature is 403 LINK_INVALID (checked first, in constant
 * time, so nothing is learnt about ids); a right one past its time is 410 LINK_EXPIRED.
 *
 * The secret is SDK_LINK_SECRET, else a random one kept in the data folder (as JWT_SECRET's
 * fallback is): every API instance that serves downloads needs the same one.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { loadConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { serverSecret } from '../../platform/server-secret';

const linkKey = (): Buffer => serverSecret('sdk-link-secret', loadConfig().sdkLinkSecret);

const sign = (packageId: string, expires: number) => createHmac('sha256', linkKey()).update(`sdk-package:${packageId}:${expires}`).digest('base64url');

/** The route that serves a package (api/routes/partner/sdk-download.ts). */
export const downloadPath = (packageId: string) => `/api/v2/partner/sdk/packages/${encodeURIComponent(packageId)}/download`;

export interface SignedLink {
  url: string;
  expiresAt: Date;
}

/**
 * A link to download the package until now + ttl (SDK_LINK_TTL_SECONDS). baseUrl (scheme and host,
 * e.g. from the request) makes it absolute; without one and without PUBLIC_URL it is a path.
 */
export function signDownloadLink(packageId: string, opts: { baseUrl?: string; ttlSeconds?: number; now?: number } = {}): SignedLink {
  const cfg = loadConfig();
  const expires = Math.floor((opts.now ?? Date.now()) / 1000) + (opts.ttlSeconds ?? cfg.sdkLinkTtlSeconds);
  const base = (opts.baseUrl || cfg.publicUrl).replace(/\/+$/, '');
  const query = new URLSearchParams({ expires: String(expires), signature: sign(packageId, expires) });
  return { url: `${base}${downloadPath(packageId)}?${query}`, expiresAt: new Date(expires * 1000) };
}

/** Throws LINK_INVALID (bad signature) or LINK_EXPIRED (good signature, past expires); returns when the link holds. */
export function verifyDownloadLink(packageId: string, expires: number, signature: string, now = Date.now()): void {
  const expected = Buffer.from(sign(packageId, expires));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new DomainError('LINK_INVALID', 'The download link is not valid; ask for the generation again to get a fresh link');
  }
  if (now >= expires * 1000) {
    throw new DomainError('LINK_EXPIRED', `The download link expired at ${new Date(expires * 1000).toISOString()}; ask for the generation again to get a fresh link`);
  }
}
