/**
 * The registry of PSD2 third-party providers (TPPs). A TPP registers its eIDAS certificate once
 * (POST /api/v1/open-banking/tpps); every open banking call then names it by the mutual-TLS client
 * certificate the proxy forwards (identifyTpp), looked up by the SHA-256 fingerprint of its DER.
 *
 * Environment: a certificate the sandbox CA signed is a sandbox TPP; one issued by a CA of the
 * production trust store (OPEN_BANKING_TRUST_STORE, a PEM bundle) is a production TPP.
 */
import { createHash, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getPool, type Queryable, onPoolClosed } from '../db/pool';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { certificateMissing, decodeCertificateHeader, derOfPem, fingerprintOfDer, parseTppCertificate, PSD2_ROLE_NAMES, type Psd2Role, type TppCertificate } from './certificates';
import { sandboxIssuance } from './sandbox-ca';
import { cacheEpoch, cachesTrusted, canStore, credentialsChanged, registerCache } from '../events/cache-notices';

export const TPP_STATUSES = ['active', 'blocked'] as const;
export type TppStatus = (typeof TPP_STATUSES)[number];

export interface Tpp {
  id: string;
  environment: Environment;
  name: string;
  authorisationNumber: string;
  roles: Psd2Role[];
  ncaName: string;
  ncaId: string;
  notAfter: Date;
  status: TppStatus;
  fingerprint: string;
  /** The certificate's DNS names: where the TPP's redirect URIs may point. */
  redirectDomains: string[];
  createdAt: Date;
}

const COLUMNS = `id, environment, name, authorisation_number AS "authorisationNumber", roles, nca_name AS "ncaName", nca_id AS "ncaId",
  not_after AS "notAfter", status, fingerprint, redirect_domains AS "redirectDomains", created_at AS "createdAt"`;

const invalid = (detail: string) => new DomainError('CERTIFICATE_INVALID', `The TPP certificate is not valid: ${detail}`);

// --- trust

/** The CA certificates of the production trust store; unset or unreadable: 503, nothing can be judged. */
function productionTrustStore(): NodeX509Certificate[] {
  const file = loadConfig().openBankingTrustStore;
  const unavailable = (why: string) =>
    new DomainError('TRUST_STORE_NOT_CONFIGURED', `Production TPP certificates cannot be verified: ${why}; sandbox certificates (POST /api/v1/open-banking/sandbox/certificates) register as usual`);
  if (!file) throw unavailable('no trust store is configured (OPEN_BANKING_TRUST_STORE)');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw unavailable('the trust store file (OPEN_BANKING_TRUST_STORE) cannot be read');
  }
  const cas: NodeX509Certificate[] = [];
  for (const m of text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)) {
    try {
      cas.push(new NodeX509Certificate(m[0]));
    } catch {
      // A damaged entry trusts nothing; the others still count.
    }
  }
  if (cas.length === 0) throw unavailable('the trust store (OPEN_BANKING_TRUST_STORE) holds no certificate');
  return cas;
}

const validNow = (cert: NodeX509Certificate, now: number) => Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);

/**
 * Which environment's CA issued the certificate (signature checked; the leaf's own validity is
 * judged apart, so an expired one is CERTIFICATE_EXPIRED, not invalid). Trust store entries are
 * anchors: the leaf must be signed by one of them directly (the header carries no intermediates).
 */
async function issuingEnvironment(cert: TppCertificate, c: Queryable): Promise<Environment> {
  let leaf: NodeX509Certificate;
  try {
    leaf = new NodeX509Certificate(cert.pem);
  } catch {
    throw invalid('not an X.509 certificate');
  }
  const sandbox = await sandboxIssuance(cert.pem, c);
  if (sandbox === 'signed') return 'sandbox';
  if (sandbox === 'forged') throw invalid('it names the sandbox CA as issuer but the CA did not sign it');
  if (leaf.checkIssued(leaf) && leaf.verify(leaf.publicKey)) throw invalid('it is self-signed; a TPP certificate is issued by a qualified trust service provider');
  const now = Date.now();
  const issuer = productionTrustStore().find((ca) => ca.ca && validNow(ca, now) && leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
  if (!issuer) throw invalid('it is not issued by a CA the platform trusts');
  return 'production';
}

// --- registry

const cache = new Map<string, { at: number; tpp: Tpp | null }>();
onPoolClosed(() => cache.clear());
/**
 * How long a lookup is reused at most: a block or a new registration reaches every process at once
 * by a notice (domain/events/cache-notices.ts), and nothing is reused while those are not heard.
 */
const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;
registerCache('tpps', (n) => {
  if (!n || n.cache !== 'tpps' || !n.tppId) return cache.clear();
  for (const [key, hit] of cache) if (hit.tpp?.id === n.tppId) cache.delete(key);
});

/** Drops this instance's cached lookups (after a registration or a status change). */
export function forgetCachedTpps(): void {
  cache.clear();
}

/**
 * Registers a TPP by its certificate (PEM); the same certificate again returns the same TPP
 * (`created: false`). Refusals: CERTIFICATE_INVALID (unreadable, not PSD2, untrusted),
 * CERTIFICATE_EXPIRED, TRUST_STORE_NOT_CONFIGURED (a production certificate with no trust store).
 */
export async function registerTpp(pem: string): Promise<{ tpp: Tpp; created: boolean }> {
  const c = getPool();
  const cert = parseTppCertificate(pem);
  const environment = await issuingEnvironment(cert, c);
  const now = Date.now();
  if (now > cert.notAfter.getTime()) throw new DomainError('CERTIFICATE_EXPIRED', `The TPP certificate expired on ${cert.notAfter.toISOString()}`);
  if (now < cert.notBefore.getTime()) throw invalid(`it is valid only from ${cert.notBefore.toISOString()}`);
  const inserted = await c.query<Tpp>(
    `INSERT INTO ob_tpps (id, environment, name, authorisation_number, nca_name, nca_id, roles, fingerprint, certificate_pem, not_before, not_after, redirect_domains)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (fingerprint) DO NOTHING RETURNING ${COLUMNS}`,
    [newId('tpp'), environment, cert.subjectName, cert.authorisationNumber, cert.ncaName, cert.ncaId, cert.roles, cert.fingerprint, cert.pem, cert.notBefore, cert.notAfter, cert.dnsNames],
  );
  if (inserted.rows[0]) {
    // Cached "not registered" answers for its certificate go, here and on every process.
    await credentialsChanged({ cache: 'tpps' });
    return { tpp: inserted.rows[0], created: true };
  }
  const { rows } = await c.query<Tpp>(`SELECT ${COLUMNS} FROM ob_tpps WHERE fingerprint = $1`, [cert.fingerprint]);
  return { tpp: rows[0], created: false };
}

async function lookUp(headerValue: string, c: Queryable): Promise<Tpp | null> {
  const fingerprint = fingerprintOfDer(derOfPem(decodeCertificateHeader(headerValue)));
  const { rows } = await c.query<Tpp>(`SELECT ${COLUMNS} FROM ob_tpps WHERE fingerprint = $1`, [fingerprint]);
  return rows[0] ?? null;
}

/**
 * The TPP of an open banking call, from the certificate header (TPP_CERTIFICATE_HEADER). On the hot
 * path: lookups are cached for a few seconds by a hash of the header text, so a known header is
 * neither decoded nor queried again. Refusals: CERTIFICATE_MISSING, CERTIFICATE_INVALID (not
 * registered), CERTIFICATE_EXPIRED, CERTIFICATE_BLOCKED.
 */
export async function identifyTpp(headerValue: string | undefined, c: Queryable = getPool()): Promise<Tpp> {
  if (!headerValue || !headerValue.trim()) throw certificateMissing();
  const key = createHash('sha256').update(headerValue).digest('hex');
  const now = Date.now();
  let hit = cachesTrusted() ? cache.get(key) : undefined;
  if (!hit || now - hit.at > CACHE_MS) {
    const taken = cacheEpoch();
    hit = { at: now, tpp: await lookUp(headerValue, c) };
    // Not stored if a notice came in while the row was read: the row may predate the change.
    if (canStore(taken)) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, hit);
    }
  }
  const tpp = hit.tpp;
  if (!tpp) throw invalid('it is not registered (POST /api/v1/open-banking/tpps)');
  if (now > tpp.notAfter.getTime()) throw new DomainError('CERTIFICATE_EXPIRED', `The TPP certificate expired on ${tpp.notAfter.toISOString()}`);
  if (tpp.status === 'blocked') throw new DomainError('CERTIFICATE_BLOCKED', 'This TPP is blocked by the platform');
  return tpp;
}

/** Refuses a TPP whose certificate does not carry the PSD2 role a call needs. */
export function requireRole(tpp: Tpp, role: Psd2Role): void {
  if (!tpp.roles.includes(role)) {
    throw new DomainError('ROLE_INVALID', `The TPP does not have the PSD2 role ${role} (${PSD2_ROLE_NAMES[role]}) this call needs; its certificate names ${tpp.roles.join(', ')}`);
  }
}

/**
 * Blocks or unblocks a TPP: refused (or let in) on its next call on every process. Runs on its own
 * (no caller's transaction), so the notice follows the committed change.
 */
export async function setTppStatus(id: string, status: TppStatus): Promise<Tpp> {
  if (!TPP_STATUSES.includes(status)) throw new DomainError('VALIDATION_ERROR', `status must be one of ${TPP_STATUSES.join(', ')}`, '/status');
  const { rows } = await getPool().query<Tpp>(`UPDATE ob_tpps SET status = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, status]);
  if (!rows[0]) throw new DomainError('TPP_NOT_FOUND', `TPP ${id} not found`);
  await credentialsChanged({ cache: 'tpps', tppId: id });
  return rows[0];
}
