// @peculiar/x509 needs the Reflect metadata API before it loads (as in domain/open-banking).
import 'reflect-metadata';
import { createHash, createPrivateKey, createPublicKey, sign, verify, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
  type Extension,
  type JsonName,
} from '@peculiar/x509';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { getPool } from '../../domain/db/pool';
import { TPP_CERTIFICATE_HEADER, decodeCertificateHeader, derOfPem, parseTppCertificate, psd2QcStatementsExtension, type Psd2Role } from '../../domain/open-banking/certificates';
import { issueSandboxCertificate, sandboxCa, verifiesWithSandboxCa } from '../../domain/open-banking/sandbox-ca';
import { forgetCachedTpps, identifyTpp, registerTpp, requireRole, setTppStatus } from '../../domain/open-banking/tpps';
import { cacheNoticesListening, nextCacheNotice, publishCacheNotice } from '../../domain/events/cache-notices';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import type { DomainError } from '../../domain/platform/errors';
import { refusedWith } from '../helpers/refusal';

const BASE = '/api/v1/open-banking';
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
afterEach(() => {
  delete process.env.OPEN_BANKING_TRUST_STORE;
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url: BASE + url, headers, payload });
const me = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${BASE}/tpps/me`, headers });
const certHeader = (pem: string) => ({ [TPP_CERTIFICATE_HEADER]: encodeURIComponent(pem) });
const codeOf = (r: { json(): { errors?: { code: string }[] } }) => r.json().errors?.[0]?.code;


interface TestCa {
  cert: X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

/** A CA of someone else's (a qualified trust service provider in production, in these tests). */
async function makeCa(name: string): Promise<TestCa> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const cert = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '0a',
    name: [{ CN: [name] }],
    keys,
    signingAlgorithm: SIGNING,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    extensions: [new BasicConstraintsExtension(true, 0, true), new KeyUsagesExtension(KeyUsageFlags.keyCertSign, true), await SubjectKeyIdentifierExtension.create(keys.publicKey)],
  });
  return { cert, keys };
}

/** A PSD2 certificate: issued by `ca`, or self-signed without one; `issuerName` overrides the issuer it names. */
async function psd2Certificate(opts: { ca?: TestCa; issuerName?: string; psd2?: boolean; roles?: Psd2Role[]; orgId?: string } = {}): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const subject: JsonName = [{ CN: ['Test TPP'] }, { O: ['Test TPP GmbH'] }, { '2.5.4.97': [opts.orgId ?? 'PSDDE-BAFIN-123456'] }];
  const extensions: Extension[] = [new BasicConstraintsExtension(false)];
  if (opts.psd2 !== false) extensions.push(psd2QcStatementsExtension(opts.roles ?? ['PSP_AI'], 'BaFin', 'DE-BAFIN'));
  if (opts.ca) extensions.push(await AuthorityKeyIdentifierExtension.create(opts.ca.cert));
  const cert = await X509CertificateGenerator.create({
    serialNumber: '0b',
    subject,
    issuer: opts.issuerName ?? (opts.ca ? opts.ca.cert.subject : subject),
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: opts.ca ? opts.ca.keys.privateKey : keys.privateKey,
    extensions,
  });
  return cert.toString('pem');
}

describe('sandbox CA', () => {
  it('concurrent first uses create one CA', async () => {
    await getPool().query('DELETE FROM ob_sandbox_ca');
    const cas = await Promise.all(Array.from({ length: 6 }, () => sandboxCa()));
    expect(new Set(cas.map((c) => c.certificatePem)).size).toBe(1);
    const { rows } = await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM ob_sandbox_ca');
    expect(rows[0].n).toBe(1);
    const ca = new X509Certificate(cas[0].certificatePem);
    expect(ca.publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(ca.getExtension(BasicConstraintsExtension)?.ca).toBe(true);
  });
});

describe('TPP registration and identification', () => {
  let issued: { certificate: string; private_key: string; authorisation_number: string; roles: string[]; valid_until: string };
  let tppId: string;

  it('issues a sandbox certificate with a working key; the certificate reads back its roles, authorisation number and NCA', async () => {
    const r = await post('/sandbox/certificates', { name: 'Acme Account Info', roles: ['PSP_AI', 'PSP_PI'], redirect_domains: ['acme-info.example', '*.apps.acme-info.example'] }, t.headers);
    expect(r.statusCode, r.body).toBe(201);
    issued = r.json().data;
    expect(issued.authorisation_number).toMatch(/^PSDXX-SANDBOX-\d{8}$/);
    expect(issued.roles).toEqual(['PSP_PI', 'PSP_AI']);
    expect(Date.parse(issued.valid_until) - Date.now()).toBeGreaterThan(364 * DAY);
    expect(Date.parse(issued.valid_until) - Date.now()).toBeLessThan(366 * DAY);
    expect(issued.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    const cert = parseTppCertificate(issued.certificate);
    expect(cert.dnsNames).toEqual(['acme-info.example', '*.apps.acme-info.example']);
    expect(cert).toMatchObject({
      subjectName: 'Acme Account Info',
      organizationName: 'Acme Account Info',
      authorisationNumber: issued.authorisation_number,
      roles: ['PSP_PI', 'PSP_AI'],
      ncaName: 'Sandbox NCA',
      ncaId: 'XX-SANDBOX',
    });
    expect(cert.fingerprint).toBe(createHash('sha256').update(derOfPem(issued.certificate)).digest('hex'));
    expect(await verifiesWithSandboxCa(issued.certificate)).toBe(true);
    // The private key is the certificate's.
    const signature = sign('sha256', Buffer.from('proof'), createPrivateKey(issued.private_key));
    expect(verify('sha256', Buffer.from('proof'), createPublicKey(issued.certificate), signature)).toBe(true);
  });

  it('registers the certificate (201), and the same certificate again returns the same TPP (200)', async () => {
    const first = await post('/tpps', { certificate: issued.certificate });
    expect(first.statusCode, first.body).toBe(201);
    const tpp = first.json().data;
    expect(tpp).toEqual({
      tpp_id: expect.stringMatching(/^tpp_[0-9a-f]{32}$/),
      name: 'Acme Account Info',
      authorisation_number: issued.authorisation_number,
      roles: ['PSP_PI', 'PSP_AI'],
      nca_name: 'Sandbox NCA',
      nca_id: 'XX-SANDBOX',
      environment: 'sandbox',
      certificate_fingerprint: parseTppCertificate(issued.certificate).fingerprint,
      redirect_domains: ['acme-info.example', '*.apps.acme-info.example'],
      valid_until: issued.valid_until,
      status: 'active',
      created_at: expect.any(String),
    });
    tppId = tpp.tpp_id;
    const again = await post('/tpps', { certificate: issued.certificate });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.tpp_id).toBe(tppId);
    const { rows } = await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM ob_tpps WHERE fingerprint = $1', [tpp.certificate_fingerprint]);
    expect(rows[0].n).toBe(1);
  });

  it('identifies the TPP by the certificate header: URL-encoded PEM as nginx forwards it, or base64 DER', async () => {
    const r = await me(certHeader(issued.certificate));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data).toMatchObject({ tpp_id: tppId, environment: 'sandbox', roles: ['PSP_PI', 'PSP_AI'] });
    const der = await me({ [TPP_CERTIFICATE_HEADER]: derOfPem(issued.certificate).toString('base64') });
    expect(der.statusCode, der.body).toBe(200);
    expect(der.json().data.tpp_id).toBe(tppId);
    // Plain PEM, with the line breaks a header cannot carry turned into spaces, reads the same.
    expect(decodeCertificateHeader(issued.certificate)).toBe(decodeCertificateHeader(issued.certificate.replaceAll('\n', ' ')));
  });

  it('no certificate header: 401 CERTIFICATE_MISSING', async () => {
    for (const headers of [{}, { [TPP_CERTIFICATE_HEADER]: '' }, { [TPP_CERTIFICATE_HEADER]: '   ' }] as Record<string, string>[]) {
      const r = await me(headers);
      expect(r.statusCode, r.body).toBe(401);
      expect(codeOf(r)).toBe('CERTIFICATE_MISSING');
    }
  });

  it('a certificate that is not registered, or a header that is no certificate: 401 CERTIFICATE_INVALID', async () => {
    const other = await issueSandboxCertificate({ name: 'Never Registered', roles: ['PSP_AI'] });
    for (const value of [encodeURIComponent(other.certificate), 'not-a-certificate', '%E0%A4%A', encodeURIComponent('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')]) {
      const r = await me({ [TPP_CERTIFICATE_HEADER]: value });
      expect(r.statusCode, `${value}: ${r.body}`).toBe(401);
      expect(codeOf(r)).toBe('CERTIFICATE_INVALID');
    }
  });

  it('refuses to register a self-signed certificate, one without the PSD2 statement or authorisation number, a forged sandbox one, and text that is no certificate (401 CERTIFICATE_INVALID)', async () => {
    const caSubject = new X509Certificate((await sandboxCa()).certificatePem).subject;
    const bodies = [
      await psd2Certificate(),
      await psd2Certificate({ psd2: false }),
      await psd2Certificate({ orgId: 'ACME-123' }),
      await psd2Certificate({ ca: await makeCa('Impostor CA'), issuerName: caSubject }),
      'hello',
    ];
    for (const certificate of bodies) {
      const r = await post('/tpps', { certificate });
      expect(r.statusCode, r.body).toBe(401);
      expect(codeOf(r)).toBe('CERTIFICATE_INVALID');
    }
    const { rows } = await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM ob_tpps');
    expect(rows[0].n).toBe(1);
  });

  it('an expired sandbox certificate: 401 CERTIFICATE_EXPIRED at registration, and a registered one once it expires', async () => {
    const expired = await issueSandboxCertificate({ name: 'Expired TPP', roles: ['PSP_AI'], notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) });
    expect(await verifiesWithSandboxCa(expired.certificate)).toBe(false);
    const r = await post('/tpps', { certificate: expired.certificate });
    expect(r.statusCode, r.body).toBe(401);
    expect(codeOf(r)).toBe('CERTIFICATE_EXPIRED');

    const later = await issueSandboxCertificate({ name: 'Soon Expired TPP', roles: ['PSP_AI'] });
    const { tpp } = await registerTpp(later.certificate);
    expect((await identifyTpp(encodeURIComponent(later.certificate))).id).toBe(tpp.id);
    await getPool().query(`UPDATE ob_tpps SET not_after = now() - interval '1 second' WHERE id = $1`, [tpp.id]);
    forgetCachedTpps();
    const gone = await me(certHeader(later.certificate));
    expect(gone.statusCode, gone.body).toBe(401);
    expect(codeOf(gone)).toBe('CERTIFICATE_EXPIRED');
  });

  it('a blocked TPP: 401 CERTIFICATE_BLOCKED at once, and back when unblocked', async () => {
    await setTppStatus(tppId, 'blocked');
    const r = await me(certHeader(issued.certificate));
    expect(r.statusCode, r.body).toBe(401);
    expect(codeOf(r)).toBe('CERTIFICATE_BLOCKED');
    await setTppStatus(tppId, 'active');
    expect((await me(certHeader(issued.certificate))).statusCode).toBe(200);
  });

  it('requireRole: ROLE_INVALID (403) for a role the certificate does not carry', async () => {
    const tpp = await identifyTpp(encodeURIComponent(issued.certificate));
    expect(() => requireRole(tpp, 'PSP_AI')).not.toThrow();
    expect(() => requireRole(tpp, 'PSP_PI')).not.toThrow();
    let code: string | undefined;
    try {
      requireRole(tpp, 'PSP_IC');
    } catch (e) {
      code = (e as DomainError).code;
      expect((e as DomainError).message).toMatch(/^The TPP does not have the PSD2 role PSP_IC/);
    }
    expect(code).toBe('ROLE_INVALID');
    expect(statusForCode('ROLE_INVALID')).toBe(403);
  });
});

describe('a TPP blocked by another process', () => {
  it('is refused 401 CERTIFICATE_BLOCKED on its very next call here (failed before: served from the 5 s cache)', async () => {
    await cacheNoticesListening();
    const c = await issueSandboxCertificate({ name: 'Elsewhere TPP', roles: ['PSP_AI'] });
    const { tpp } = await registerTpp(c.certificate);
    expect((await me(certHeader(c.certificate))).statusCode).toBe(200); // cached here
    // The other process's block: its write, then its notice (its own sender id, not this process's).
    await getPool().query(`UPDATE ob_tpps SET status = 'blocked' WHERE id = $1`, [tpp.id]);
    const applied = nextCacheNotice();
    expect(await publishCacheNotice({ cache: 'tpps', tppId: tpp.id }, 'another-api-process')).toBe(true);
    await applied;
    const r = await me(certHeader(c.certificate));
    expect(r.statusCode, r.body).toBe(401);
    expect(codeOf(r)).toBe('CERTIFICATE_BLOCKED');
  });
});

describe('sandbox certificates route', () => {
  it('is for sandbox credentials: a production key gets 403 ENVIRONMENT_NOT_PERMITTED', async () => {
    const prod = await createTestUser({ environment: 'production' });
    const r = await post('/sandbox/certificates', { name: 'Live TPP', roles: ['PSP_AI'] }, prod.headers);
    expect(r.statusCode, r.body).toBe(403);
    expect(codeOf(r)).toBe('ENVIRONMENT_NOT_PERMITTED');
  });

  it('validates roles and the authorisation number, and takes a given one', async () => {
    for (const body of [{ name: 'x', roles: [] }, { name: 'x', roles: ['PSP_XX'] }, { name: 'x', roles: ['PSP_AI'], authorisation_number: 'ACME-1' }, { name: '', roles: ['PSP_AI'] }]) {
      const r = await post('/sandbox/certificates', body, t.headers);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(codeOf(r)).toBe('VALIDATION_ERROR');
    }
    const r = await post('/sandbox/certificates', { name: 'Given Number', roles: ['PSP_IC'], authorisation_number: 'PSDDE-BAFIN-987654' }, t.headers);
    expect(r.statusCode, r.body).toBe(201);
    expect(parseTppCertificate(r.json().data.certificate)).toMatchObject({ authorisationNumber: 'PSDDE-BAFIN-987654', roles: ['PSP_IC'] });
  });
});

describe('production TPPs', () => {
  it('without a trust store: 503 TRUST_STORE_NOT_CONFIGURED, nothing registered', async () => {
    const ca = await makeCa('Qualified TSP CA');
    const r = await post('/tpps', { certificate: await psd2Certificate({ ca }) });
    expect(r.statusCode, r.body).toBe(503);
    expect(codeOf(r)).toBe('TRUST_STORE_NOT_CONFIGURED');
    process.env.OPEN_BANKING_TRUST_STORE = path.join(tmpdir(), 'no-such-trust-store.pem');
    expect(await refusedWith(registerTpp(await psd2Certificate({ ca })))).toBe('TRUST_STORE_NOT_CONFIGURED');
  });

  it('with a trust store: a certificate its CA issued is a production TPP; other CAs and self-signed ones are CERTIFICATE_INVALID', async () => {
    const ca = await makeCa('Qualified TSP CA');
    const stranger = await makeCa('Unknown CA');
    const dir = mkdtempSync(path.join(tmpdir(), 'ob-trust-'));
    try {
      const file = path.join(dir, 'trust.pem');
      writeFileSync(file, `${(await makeCa('Another TSP CA')).cert.toString('pem')}\n${ca.cert.toString('pem')}\n`);
      process.env.OPEN_BANKING_TRUST_STORE = file;
      const leaf = await psd2Certificate({ ca, roles: ['PSP_PI', 'PSP_AS'] });
      const r = await post('/tpps', { certificate: leaf });
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json().data).toMatchObject({ environment: 'production', authorisation_number: 'PSDDE-BAFIN-123456', roles: ['PSP_AS', 'PSP_PI'], nca_name: 'BaFin', nca_id: 'DE-BAFIN', name: 'Test TPP' });
      expect((await me(certHeader(leaf))).json().data).toMatchObject({ tpp_id: r.json().data.tpp_id, environment: 'production' });
      for (const certificate of [await psd2Certificate({ ca: stranger }), await psd2Certificate(), await psd2Certificate({ ca: stranger, issuerName: ca.cert.subject })]) {
        const bad = await post('/tpps', { certificate });
        expect(bad.statusCode, bad.body).toBe(401);
        expect(codeOf(bad)).toBe('CERTIFICATE_INVALID');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
