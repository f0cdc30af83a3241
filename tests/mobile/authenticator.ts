/**
 * A software WebAuthn authenticator (and the client around it) on node:crypto, for tests and the
 * bench: what a phone's platform authenticator and its passkey API produce, byte for byte.
 *
 * - Real ES256 credentials: a P-256 key pair per credential (crypto.generateKeyPairSync).
 * - The public key as a COSE_Key (RFC 9053 / WebAuthn §6.5.1.1): {1: kty 2 (EC2), 3: alg -7 (ES256),
 *   -1: crv 1 (P-256), -2: x, -3: y}, CBOR-encoded.
 * - authenticatorData (WebAuthn §6.1): SHA-256(rpId) ‖ flags (UP 0x01, UV 0x04, BE 0x08, BS 0x10,
 *   AT 0x40) ‖ signCount (uint32 big-endian) ‖ on registration the attested credential data
 *   (AAGUID ‖ credentialIdLength uint16 ‖ credentialId ‖ COSE_Key).
 * - The attestation object: CBOR {fmt: "none", attStmt: {}, authData} (§8.7 "none" format).
 * - clientDataJSON as a browser serialises it ({type, challenge, origin, crossOrigin}).
 * - Assertion signatures: ECDSA P-256 / SHA-256 over authenticatorData ‖ SHA-256(clientDataJSON),
 *   DER-encoded (§6.3.3 step 11, §6.5.5).
 *
 * CBOR comes from @simplewebauthn/server's helpers (isoCBOR, i.e. @levischuck/tiny-cbor): only
 * the encoder; every byte layout above is built here. Tamper options produce the refusals a real
 * attacker (or a broken client) would send.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_BE = 0x08;
export const FLAG_BS = 0x10;
export const FLAG_AT = 0x40;

const COSE_KTY_EC2 = 2;
const COSE_ALG_ES256 = -7;
const COSE_CRV_P256 = 1;

type Cbor = Parameters<typeof isoCBOR.encode>[0];

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export interface StoredCredential {
  id: string;
  privateKey: KeyObject;
  cosePublicKey: Uint8Array;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a tampering client or a broken authenticator changes; unset fields are the honest value. */
export interface Tamper {
  origin?: string;
  /** The RP ID hashed into authenticatorData. */
  rpId?: string;
  type?: string;
  challenge?: string;
  up?: boolean;
  uv?: boolean;
  /** The signature counter to report (and remember). */
  counter?: number;
  flipSignatureByte?: boolean;
  userHandle?: string;
}

export interface AuthenticatorOptions {
  /** The origin the client (app or browser) reports: WEBAUTHN_ORIGINS must list it. */
  origin?: string;
  aaguid?: Uint8Array;
  /** Backup eligible and backed up: a synced passkey (multiDevice) unless false. */
  backupEligible?: boolean;
  backedUp?: boolean;
  /** Added to the counter on each assertion; 0 for authenticators without a counter (most synced passkeys). */
  counterStep?: number;
  transports?: string[];
}

export class SoftwareAuthenticator {
  readonly credentials = new Map<string, StoredCredential>();
  readonly origin: string;
  private readonly aaguid: Uint8Array;
  private readonly backupEligible: boolean;
  private readonly backedUp: boolean;
  private readonly counterStep: number;
  private readonly transports: string[];

  constructor(opts: AuthenticatorOptions = {}) {
    this.origin = opts.origin ?? 'http://localhost:3000';
    this.aaguid = opts.aaguid ?? new Uint8Array(16);
    this.backupEligible = opts.backupEligible ?? true;
    this.backedUp = opts.backedUp ?? this.backupEligible;
    this.counterStep = opts.counterStep ?? 1;
    this.transports = opts.transports ?? ['internal', 'hybrid'];
  }

  private flags(t: Tamper, extra: number): number {
    let f = extra;
    if (t.up !== false) f |= FLAG_UP;
    if (t.uv !== false) f |= FLAG_UV;
    if (this.backupEligible) f |= FLAG_BE;
    if (this.backupEligible && this.backedUp) f |= FLAG_BS;
    return f;
  }

  private clientData(type: string, challenge: string, t: Tamper): Buffer {
    return Buffer.from(JSON.stringify({ type: t.type ?? type, challenge: t.challenge ?? challenge, origin: t.origin ?? this.origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a new ES256 credential, attested with the "none" format. */
  create(options: PublicKeyCredentialCreationOptionsJSON, t: Tamper = {}): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    if (!options.pubKeyCredParams.some((p) => p.alg === COSE_ALG_ES256 && p.type === 'public-key')) throw new Error('NotSupportedError: ES256 not offered');
    for (const ex of options.excludeCredentials ?? []) {
      if (this.credentials.get(ex.id)?.rpId === rpId) throw new Error('InvalidStateError: a credential of this authenticator is excluded');
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, Cbor>([
        [1, COSE_KTY_EC2],
        [3, COSE_ALG_ES256],
        [-1, COSE_CRV_P256],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
    const credId = randomBytes(32);
    const counter = t.counter ?? 0;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credId.length);
    const authData = Buffer.concat([this.authDataHead(t.rpId ?? rpId, this.flags(t, FLAG_AT), counter), this.aaguid, idLength, credId, cose]);
    const attestationObject = isoCBOR.encode(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const id = b64url(credId);
    this.credentials.set(id, { id, privateKey, cosePublicKey: cose, rpId, userHandle: options.user.id, counter });
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, t)),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authData),
        transports: this.transports as RegistrationResponseJSON['response']['transports'],
        publicKeyAlgorithm: COSE_ALG_ES256,
        publicKey: b64url(publicKey.export({ format: 'der', type: 'spki' })),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
    };
  }

  /**
   * navigator.credentials.get(): an assertion by the credential named (or the first one allowed,
   * or, for discoverable sign-in, the first one of the RP).
   */
  get(options: PublicKeyCredentialRequestOptionsJSON, t: Tamper & { credentialId?: string } = {}): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const cred =
      (t.credentialId ? this.credentials.get(t.credentialId) : undefined) ??
      [...this.credentials.values()].find((c) => c.rpId === rpId && (allowed.length === 0 || allowed.includes(c.id)));
    if (!cred) throw new Error('NotAllowedError: no credential for this request');
    cred.counter = t.counter ?? cred.counter + this.counterStep;
    const authData = this.authDataHead(t.rpId ?? rpId, this.flags(t, 0), cred.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, t);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), cred.privateKey);
    if (t.flipSignatureByte) signature[signature.length - 5] ^= 0x01;
    return {
      id: cred.id,
      rawId: cred.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: t.userHandle ?? cred.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  private authDataHead(rpId: string, flags: number, counter: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }
}

/** The body of POST /api/v2/mobile/auth/passkey/verify (the spec's field names) for an assertion. */
export function verifyBody(a: AuthenticationResponseJSON, encoding: 'base64url' | 'base64' = 'base64url') {
  const enc = (s: string) => (encoding === 'base64url' ? s : Buffer.from(s, 'base64url').toString('base64'));
  return {
    credential_id: enc(a.rawId),
    authenticator_data: enc(a.response.authenticatorData),
    client_data_json: enc(a.response.clientDataJSON),
    signature: enc(a.response.signature),
    ...(a.response.userHandle ? { user_handle: enc(a.response.userHandle) } : {}),
  };
}
