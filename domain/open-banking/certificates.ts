/**
 * eIDAS certificates of PSD2 third-party providers (Berlin Group NextGenPSD2): what a TPP is, read
 * from its QWAC/QSealC. The subject's organizationIdentifier (2.5.4.97) is its PSD2 authorisation
 * number; the ETSI TS 119 495 PSD2 QCStatement (0.4.0.19495.2, inside qcStatements) names its
 * roles and its competent authority (NCA). ASN.1 through @peculiar/asn1-schema, never by hand.
 */
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { AsnArray, AsnConvert, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes } from '@peculiar/asn1-schema';
import { QCStatement, QCStatements, id_pe_qcStatements } from '@peculiar/asn1-x509-qualified';
import { Extension, SubjectAlternativeNameExtension, X509Certificate } from '@peculiar/x509';
import { DomainError } from '../platform/errors';

/**
 * The request header carrying the client certificate of the mutual-TLS connection, as the
 * TLS-terminating proxy sets it (nginx: `proxy_set_header X-SSL-Client-Cert $ssl_client_escaped_cert`).
 * The proxy must overwrite any value the client sent: whoever can set it is whichever TPP it names.
 */
export const TPP_CERTIFICATE_HEADER = 'x-ssl-client-cert';

export const PSD2_ROLES = ['PSP_AS', 'PSP_PI', 'PSP_AI', 'PSP_IC'] as const;
export type Psd2Role = (typeof PSD2_ROLES)[number];

/** ETSI TS 119 495 role OIDs (id-psd2-role-*) and what each role may do. */
export const PSD2_ROLE_OIDS: Readonly<Record<Psd2Role, string>> = {
  PSP_AS: '0.4.0.19495.1.1',
  PSP_PI: '0.4.0.19495.1.2',
  PSP_AI: '0.4.0.19495.1.3',
  PSP_IC: '0.4.0.19495.1.4',
};
export const PSD2_ROLE_NAMES: Readonly<Record<Psd2Role, string>> = {
  PSP_AS: 'account servicing',
  PSP_PI: 'payment initiation',
  PSP_AI: 'account information',
  PSP_IC: 'issuing of card-based payment instruments',
};

export const OID_ORGANIZATION_IDENTIFIER = '2.5.4.97';
export const OID_PSD2_QC_STATEMENT = '0.4.0.19495.2';
const OID_QC_COMPLIANCE = '0.4.0.1862.1.1';
const OID_QC_TYPE = '0.4.0.1862.1.6';
const OID_QC_TYPE_WEB = '0.4.0.1862.1.6.3';

/**
 * ETSI TS 119 495 clause 5.2.1: "PSD", the NCA's ISO 3166 country code, "-", the NCA's 2-8 letter
 * identifier, "-", the authorisation number the NCA gave (e.g. PSDDE-BAFIN-123456).
 */
export const AUTHORISATION_NUMBER_PATTERN = '^PSD[A-Z]{2}-[A-Z]{2,8}-[!-~]{1,64}$';
const AUTHORISATION_NUMBER = new RegExp(AUTHORISATION_NUMBER_PATTERN);

// --- ASN.1 (ETSI TS 119 495 annex A), declared with the library's decorators applied as functions:
// the project compiles without experimentalDecorators.

/** RoleOfPSP ::= SEQUENCE { roleOfPspOid OBJECT IDENTIFIER, roleOfPspName UTF8String (SIZE(256)) } */
export class RoleOfPsp {
  roleOfPspOid = '';
  roleOfPspName = '';
}
AsnType({ type: AsnTypeTypes.Sequence })(RoleOfPsp);
AsnProp({ type: AsnPropTypes.ObjectIdentifier })(RoleOfPsp.prototype, 'roleOfPspOid');
AsnProp({ type: AsnPropTypes.Utf8String })(RoleOfPsp.prototype, 'roleOfPspName');

/** RolesOfPSP ::= SEQUENCE OF RoleOfPSP */
export class RolesOfPsp extends AsnArray<RoleOfPsp> {
  constructor(items?: RoleOfPsp[]) {
    super(items);
    Object.setPrototypeOf(this, RolesOfPsp.prototype);
  }
}
AsnType({ type: AsnTypeTypes.Sequence, itemType: RoleOfPsp })(RolesOfPsp);

/** PSD2QcType ::= SEQUENCE { rolesOfPSP RolesOfPSP, nCAName NCAName, nCAId NCAId } */
export class Psd2QcType {
  rolesOfPSP = new RolesOfPsp();
  nCAName = '';
  nCAId = '';
}
AsnType({ type: AsnTypeTypes.Sequence })(Psd2QcType);
AsnProp({ type: RolesOfPsp })(Psd2QcType.prototype, 'rolesOfPSP');
AsnProp({ type: AsnPropTypes.Utf8String })(Psd2QcType.prototype, 'nCAName');
AsnProp({ type: AsnPropTypes.Utf8String })(Psd2QcType.prototype, 'nCAId');

/** QcType ::= SEQUENCE OF OBJECT IDENTIFIER (EN 319 412-5: esign, eseal, web). */
class QcTypes extends AsnArray<string> {
  constructor(items?: string[]) {
    super(items);
    Object.setPrototypeOf(this, QcTypes.prototype);
  }
}
AsnType({ type: AsnTypeTypes.Sequence, itemType: AsnPropTypes.ObjectIdentifier })(QcTypes);

// --- PEM and the proxy header

const invalid = (detail: string) => new DomainError('CERTIFICATE_INVALID', `The TPP certificate is not valid: ${detail}`);
const PEM_BLOCK = /-----BEGIN[ +]CERTIFICATE-----([\s\S]*?)-----END[ +]CERTIFICATE-----/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function derOfBase64(text: string): Buffer {
  const b64 = text.replace(/\s+/g, '').replaceAll('-', '+').replaceAll('_', '/');
  if (b64.length < 80 || !BASE64.test(b64)) throw invalid('neither PEM nor base64 DER');
  const der = Buffer.from(b64, 'base64');
  // DER of a certificate is a SEQUENCE with a long-form length.
  if (der[0] !== 0x30) throw invalid('not DER');
  return der;
}

/** The DER of the first certificate in PEM text (line breaks, spaces or tabs as proxies send them). */
export function derOfPem(pem: string): Buffer {
  const m = PEM_BLOCK.exec(pem);
  if (!m) throw invalid('no PEM certificate block');
  return derOfBase64(m[1]);
}

export function pemOfDer(der: Uint8Array): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** SHA-256 of the certificate's DER, lower-case hex: its identity in the registry. */
export function fingerprintOfDer(der: Uint8Array): string {
  return createHash('sha256').update(der).digest('hex');
}

export const certificateMissing = () =>
  new DomainError('CERTIFICATE_MISSING', `No TPP certificate: the ${TPP_CERTIFICATE_HEADER} header (the mutual-TLS client certificate) is required`);

/**
 * The certificate header as a TLS-terminating proxy sends it, as normalised PEM: URL-encoded PEM
 * (nginx `$ssl_client_escaped_cert`), plain PEM, or base64 DER. Nothing sent: CERTIFICATE_MISSING.
 */
export function decodeCertificateHeader(value: string | undefined): string {
  const raw = (value ?? '').trim();
  if (!raw) throw certificateMissing();
  let text = raw;
  if (text.includes('%')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      throw invalid('the header is not URL-encoded PEM');
    }
  }
  return pemOfDer(text.includes('-----BEGIN') ? derOfPem(text) : derOfBase64(text));
}

// --- parsing

export interface TppCertificate {
  fingerprint: string;
  /** Subject CN (else O): the name the TPP is shown by. */
  subjectName: string;
  organizationName: string;
  /** Subject organizationIdentifier: the PSD2 authorisation number. */
  authorisationNumber: string;
  roles: Psd2Role[];
  ncaName: string;
  ncaId: string;
  notBefore: Date;
  notAfter: Date;
  /** The subjectAltName dNSName entries, lower-case: the TPP's domains (where its redirect URIs may point). */
  dnsNames: string[];
  /** Normalised PEM (one certificate, 64-character lines). */
  pem: string;
}

const ROLE_BY_OID = new Map(Object.entries(PSD2_ROLE_OIDS).map(([role, oid]) => [oid, role as Psd2Role]));

function psd2Statement(cert: X509Certificate): Psd2QcType {
  const ext = cert.getExtension(id_pe_qcStatements);
  if (!ext) throw invalid('no qcStatements extension (ETSI TS 119 495 PSD2 statement)');
  let statements: QCStatements;
  try {
    statements = AsnConvert.parse(ext.value, QCStatements);
  } catch {
    throw invalid('the qcStatements extension cannot be read');
  }
  const psd2 = statements.find((s) => s.statementId === OID_PSD2_QC_STATEMENT);
  if (!psd2 || !psd2.statementInfo?.byteLength) throw invalid('no PSD2 QCStatement (0.4.0.19495.2)');
  try {
    return AsnConvert.parse(psd2.statementInfo, Psd2QcType);
  } catch {
    throw invalid('the PSD2 QCStatement cannot be read');
  }
}

/** Reads a TPP's eIDAS certificate; anything unreadable, or without PSD2 statement or authorisation number, is CERTIFICATE_INVALID. */
export function parseTppCertificate(pem: string): TppCertificate {
  const der = derOfPem(pem);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    throw invalid('not an X.509 certificate');
  }
  const field = (id: string) => cert.subjectName.getField(id)[0]?.trim() ?? '';
  const authorisationNumber = field(OID_ORGANIZATION_IDENTIFIER);
  if (!authorisationNumber) throw invalid('the subject has no organizationIdentifier (2.5.4.97, the PSD2 authorisation number)');
  if (!AUTHORISATION_NUMBER.test(authorisationNumber)) throw invalid('the organizationIdentifier is not a PSD2 authorisation number (PSD<country>-<NCA>-<id>)');
  const cn = field('CN');
  const o = field('O');
  if (!cn && !o) throw invalid('the subject has neither CN nor O');
  const statement = psd2Statement(cert);
  const found = new Set(statement.rolesOfPSP.map((r) => ROLE_BY_OID.get(r.roleOfPspOid)).filter((r): r is Psd2Role => !!r));
  const roles = PSD2_ROLES.filter((r) => found.has(r));
  if (roles.length === 0) throw invalid('the PSD2 QCStatement names no PSD2 role');
  if (!statement.nCAName.trim() || !statement.nCAId.trim()) throw invalid('the PSD2 QCStatement names no competent authority');
  return {
    fingerprint: fingerprintOfDer(der),
    subjectName: cn || o,
    organizationName: o || cn,
    authorisationNumber,
    roles,
    ncaName: statement.nCAName.trim(),
    ncaId: statement.nCAId.trim(),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    dnsNames: dnsNamesOf(cert),
    pem: pemOfDer(der),
  };
}

/** The certificate's subjectAltName dNSName entries (lower-case, without a trailing dot), if any. */
function dnsNamesOf(cert: X509Certificate): string[] {
  const san = cert.getExtension(SubjectAlternativeNameExtension);
  if (!san) return [];
  const names = san.names.items.filter((n) => n.type === 'dns').map((n) => n.value.toLowerCase().replace(/\.$/, ''));
  return [...new Set(names)].filter((n) => /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(n));
}

/**
 * Whether a TPP redirect URI may be used: an absolute https URL without credentials whose host is
 * one of the TPP's certificate domains or below one (a "*.example.com" entry covers its
 * subdomains only). The SCA page sends the customer's browser there after the decision.
 */
export function redirectUriAllowed(uri: string, domains: readonly string[]): boolean {
  if (uri.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return domains.some((d) => (d.startsWith('*.') ? host.endsWith(d.slice(1)) && host.length > d.length - 1 : host === d || host.endsWith(`.${d}`)));
}

/**
 * The qcStatements extension of a PSD2 certificate: QcCompliance, QcType web (a QWAC) and the PSD2
 * statement with these roles and competent authority (certificates the sandbox CA issues).
 */
export function psd2QcStatementsExtension(roles: readonly Psd2Role[], ncaName: string, ncaId: string): Extension {
  const psd2 = new Psd2QcType();
  psd2.rolesOfPSP = new RolesOfPsp(
    roles.map((role) => Object.assign(new RoleOfPsp(), { roleOfPspOid: PSD2_ROLE_OIDS[role], roleOfPspName: role })),
  );
  psd2.nCAName = ncaName;
  psd2.nCAId = ncaId;
  const statement = (id: string, info?: ArrayBuffer) => Object.assign(new QCStatement(), { statementId: id, statementInfo: info });
  const statements = new QCStatements([
    statement(OID_QC_COMPLIANCE),
    statement(OID_QC_TYPE, AsnConvert.serialize(new QcTypes([OID_QC_TYPE_WEB]))),
    statement(OID_PSD2_QC_STATEMENT, AsnConvert.serialize(psd2)),
  ]);
  return new Extension(id_pe_qcStatements, false, AsnConvert.serialize(statements));
}
