/**
 * The platform's sandbox certificate authority (ECDSA P-256): it issues eIDAS-like test certificates
 * (QWAC profile with the ETSI PSD2 QCStatement) so developers can call the sandbox open banking API
 * without a qualified trust service provider. A TPP whose certificate it signed is a sandbox TPP and
 * reaches sandbox data only.
 *
 * Created on first use and kept in ob_sandbox_ca (one row): every API instance signs with the same
 * key, and concurrent first uses agree on one CA (INSERT ... ON CONFLICT DO NOTHING, then read).
 */
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { randomBytes, randomInt, webcrypto, X509Certificate as NodeX509Certificate } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
  X509Certificate,
  type JsonName,
} from '@peculiar/x509';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { AUTHORISATION_NUMBER_PATTERN, pemOfDer, PSD2_ROLES, psd2QcStatementsExtension, type Psd2Role } from './certificates';

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const CA_SUBJECT: JsonName = [{ CN: ['Open Banking Sandbox CA'] }, { O: ['Multi-Asset Banking Platform (sandbox)'] }];
const CA_YEARS = 20;
const DAY_MS = 24 * 3600 * 1000;

export const SANDBOX_NCA_NAME = 'Sandbox NCA';
export const SANDBOX_NCA_ID = 'XX-SANDBOX';

interface StoredCa {
  keyPem: string;
  certificatePem: string;
}

/** PKCS#8 PEM ending in a line break, so PEM outputs concatenate into valid bundles. */
const privateKeyPem = async (key: webcrypto.CryptoKey) => `${PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;

/** A positive serial number of 16 random bytes, hex (RFC 5280: at most 20 octets, positive). */
const serialNumber = () => {
  const b = randomBytes(16);
  b[0] &= 0x7f;
  b[0] |= 0x01;
  return b.toString('hex');
};

async function createCa(): Promise<StoredCa> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: CA_SUBJECT,
    issuer: CA_SUBJECT,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + CA_YEARS * 365 * DAY_MS),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      new BasicConstraintsExtension(true, 0, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { keyPem: await privateKeyPem(keys.privateKey), certificatePem: pemOfDer(new Uint8Array(cert.rawData)) };
}

async function readCa(c: Queryable): Promise<StoredCa | null> {
  const { rows } = await c.query<StoredCa>(`SELECT key_pem AS "keyPem", certificate_pem AS "certificatePem" FROM ob_sandbox_ca`);
  return rows[0] ?? null;
}

/** The sandbox CA, created on first use (one for every instance). */
export async function sandboxCa(c: Queryable = getPool()): Promise<StoredCa> {
  const found = await readCa(c);
  if (found) return found;
  const made = await createCa();
  await c.query(`INSERT INTO ob_sandbox_ca (id, key_pem, certificate_pem) VALUES (true, $1, $2) ON CONFLICT (id) DO NOTHING`, [made.keyPem, made.certificatePem]);
  const ca = await readCa(c);
  if (!ca) throw new Error('sandbox CA row missing after insert');
  return ca;
}

/** The CA certificate (PEM), e.g. for a test client's trust configuration; null before the first certificate was issued. */
export async function sandboxCaCertificate(c: Queryable = getPool()): Promise<string | null> {
  return (await readCa(c))?.certificatePem ?? null;
}

export interface IssueSandboxCertificateInput {
  name: string;
  authorisationNumber?: string;
  roles: readonly Psd2Role[];
  ncaName?: string;
  ncaId?: string;
  /** The TPP's domains (subjectAltName dNSName): where its redirect URIs may point. */
  redirectDomains?: readonly string[];
  /** Validity from now (default 365 days); notBefore/notAfter instead set the window exactly (tests: expired certificates). */
  validDays?: number;
  notBefore?: Date;
  notAfter?: Date;
}

export interface SandboxCertificate {
  /** PEM of the certificate. */
  certificate: string;
  /** PKCS#8 PEM of its private key: returned once, never stored or logged. */
  privateKey: string;
  authorisationNumber: string;
  roles: Psd2Role[];
  notAfter: Date;
}

function checkInput(input: IssueSandboxCertificateInput): { name: string; roles: Psd2Role[]; authorisationNumber: string; domains: string[] } {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  // X.520 ub-common-name: 64 characters.
  if (!name || name.length > 64) throw new DomainError('VALIDATION_ERROR', 'name must be 1 to 64 characters', '/name');
  if (!Array.isArray(input.roles) || input.roles.length === 0) throw new DomainError('VALIDATION_ERROR', 'roles must name at least one PSD2 role', '/roles');
  const unknown = input.roles.findIndex((r) => !PSD2_ROLES.includes(r));
  if (unknown >= 0) throw new DomainError('VALIDATION_ERROR', `roles must be among ${PSD2_ROLES.join(', ')}`, `/roles/${unknown}`);
  const authorisationNumber = input.authorisationNumber ?? `PSDXX-SANDBOX-${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
  if (!new RegExp(AUTHORISATION_NUMBER_PATTERN).test(authorisationNumber)) {
    throw new DomainError('VALIDATION_ERROR', 'authorisation_number must be PSD<country>-<NCA>-<id> (ETSI TS 119 495), e.g. PSDDE-BAFIN-123456', '/authorisation_number');
  }
  const domains = input.redirectDomains ?? [];
  if (!Array.isArray(domains) || domains.length > 10) throw new DomainError('VALIDATION_ERROR', 'redirect_domains must list at most 10 DNS names', '/redirect_domains');
  const bad = domains.findIndex((d) => typeof d !== 'string' || d.length > 253 || !/^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i.test(d));
  if (bad >= 0) throw new DomainError('VALIDATION_ERROR', 'redirect_domains must be DNS names such as tpp.example.com (or *.example.com)', `/redirect_domains/${bad}`);
  return { name, roles: PSD2_ROLES.filter((r) => input.roles.includes(r)), authorisationNumber, domains: domains.map((d) => d.toLowerCase()) };
}

/** A test QWAC for a TPP, signed by the sandbox CA, with a fresh P-256 key. */
export async function issueSandboxCertificate(input: IssueSandboxCertificateInput, c: Queryable = getPool()): Promise<SandboxCertificate> {
  const { name, roles, authorisationNumber, domains } = checkInput(input);
  const stored = await sandboxCa(c);
  const caCert = new X509Certificate(stored.certificatePem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', PemConverter.decodeFirst(stored.keyPem), EC, false, ['sign']);
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const now = Date.now();
  const notBefore = input.notBefore ?? new Date(now - 60_000);
  const notAfter = input.notAfter ?? new Date(now + (input.validDays ?? 365) * DAY_MS);
  const cert = await X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [name] }, { O: [name] }, { '2.5.4.97': [authorisationNumber] }],
    issuer: caCert.subject,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new BasicConstraintsExtension(false, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
      new ExtendedKeyUsageExtension([ExtendedKeyUsage.clientAuth, ExtendedKeyUsage.serverAuth]),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
      await AuthorityKeyIdentifierExtension.create(caCert),
      psd2QcStatementsExtension(roles, input.ncaName?.trim() || SANDBOX_NCA_NAME, input.ncaId?.trim() || SANDBOX_NCA_ID),
      ...(domains.length ? [new SubjectAlternativeNameExtension(domains.map((value) => ({ type: 'dns' as const, value })))] : []),
    ],
  });
  return { certificate: pemOfDer(new Uint8Array(cert.rawData)), privateKey: await privateKeyPem(keys.privateKey), authorisationNumber, roles, notAfter: cert.notAfter };
}

/**
 * Issues a sandbox certificate for a platform caller: sandbox credentials only (a production key
 * minting test identities would blur which environment a TPP belongs to).
 */
export async function issueSandboxCertificateFor(
  by: { environment: Environment },
  input: IssueSandboxCertificateInput,
  c: Queryable = getPool(),
): Promise<SandboxCertificate> {
  if (by.environment !== 'sandbox') {
    throw new DomainError('ENVIRONMENT_NOT_PERMITTED', 'Sandbox TPP certificates are issued to sandbox credentials only; use a sandbox API key');
  }
  return issueSandboxCertificate(input, c);
}

/**
 * Whether the sandbox CA issued this certificate: 'signed' (names it as issuer and its signature
 * verifies with the CA key), 'forged' (names it but does not verify), 'other' (another issuer).
 */
export async function sandboxIssuance(pem: string, c: Queryable = getPool()): Promise<'signed' | 'forged' | 'other'> {
  let leaf: NodeX509Certificate;
  try {
    leaf = new NodeX509Certificate(pem);
  } catch {
    return 'other';
  }
  const stored = await readCa(c);
  if (!stored) return 'other';
  const ca = new NodeX509Certificate(stored.certificatePem);
  if (leaf.issuer !== ca.subject) return 'other';
  return leaf.checkIssued(ca) && leaf.verify(ca.publicKey) ? 'signed' : 'forged';
}

/** Signed by the sandbox CA and inside its validity window now. */
export async function verifiesWithSandboxCa(pem: string, c: Queryable = getPool()): Promise<boolean> {
  let leaf: NodeX509Certificate;
  try {
    leaf = new NodeX509Certificate(pem);
  } catch {
    return false;
  }
  const now = Date.now();
  if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) return false;
  return (await sandboxIssuance(pem, c)) === 'signed';
}
