/** Wire schemas and presenters of the mobile passkey routes (api/routes/mobile/passkeys.ts). */
import { tokenProps } from '../auth/schemas';
import type { Passkey } from '../../../domain/mobile/passkeys';
import { ENVIRONMENTS } from '../../../domain/platform/environment';

type Schema = Record<string, unknown>;

export const TAGS = ['Mobile'];

const str = (maxLength: number, extra: Schema = {}): Schema => ({ type: 'string', maxLength, ...extra });
const b64 = (maxLength: number, what: string): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  description: `${what}, standard base64 or base64url (padding optional)`,
});

// ---- Requests

export const registrationVerifyBody: Schema = {
  type: 'object',
  required: ['response'],
  additionalProperties: false,
  properties: {
    response: {
      type: 'object',
      description: 'RegistrationResponseJSON: the PublicKeyCredential from navigator.credentials.create() (or the platform API) as JSON',
      required: ['id', 'rawId', 'type', 'response'],
      additionalProperties: true,
      properties: {
        id: str(1400),
        rawId: str(1400),
        type: { type: 'string', enum: ['public-key'] },
        authenticatorAttachment: str(32),
        clientExtensionResults: { type: 'object', additionalProperties: true },
        response: {
          type: 'object',
          required: ['clientDataJSON', 'attestationObject'],
          additionalProperties: true,
          properties: {
            clientDataJSON: str(8192),
            attestationObject: str(65536),
            authenticatorData: str(65536),
            transports: { type: 'array', maxItems: 10, items: str(32) },
            publicKeyAlgorithm: { type: 'integer' },
            publicKey: str(8192),
          },
        },
      },
    },
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'A label for the passkey (default "Passkey")' },
  },
};

export const authenticationOptionsBody: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    email: { type: 'string', maxLength: 254, description: "The user's email, when known: their passkeys are listed in allowCredentials" },
  },
};

export const passkeyVerifyBody: Schema = {
  type: 'object',
  required: ['credential_id', 'authenticator_data', 'client_data_json', 'signature'],
  additionalProperties: false,
  properties: {
    credential_id: b64(1400, 'The credential id (rawId)'),
    authenticator_data: b64(16384, 'authenticatorData of the assertion'),
    client_data_json: b64(8192, 'clientDataJSON of the assertion'),
    signature: b64(8192, 'The assertion signature'),
    user_handle: { type: ['string', 'null'], maxLength: 128, description: 'userHandle of the assertion, when the authenticator returned one' },
    environment: { type: 'string', enum: [...ENVIRONMENTS], default: 'sandbox', description: 'The environment the session acts in (as for a password login)' },
  },
};

export const idParams: Schema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 100, description: 'The passkey id (pk_...)' } },
};

// ---- Responses

const credentialDescriptor: Schema = {
  type: 'object',
  properties: { id: { type: 'string' }, type: { type: 'string' }, transports: { type: 'array', items: { type: 'string' } } },
};

export const creationOptionsSchema: Schema = {
  type: 'object',
  description: 'PublicKeyCredentialCreationOptionsJSON, for navigator.credentials.create() (or the platform passkey API)',
  additionalProperties: true,
  properties: {
    rp: { type: 'object', properties: { name: { type: 'string' }, id: { type: 'string' } } },
    user: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, displayName: { type: 'string' } } },
    challenge: { type: 'string' },
    pubKeyCredParams: { type: 'array', items: { type: 'object', properties: { alg: { type: 'integer' }, type: { type: 'string' } } } },
    timeout: { type: 'integer' },
    excludeCredentials: { type: 'array', items: credentialDescriptor },
    authenticatorSelection: {
      type: 'object',
      properties: {
        authenticatorAttachment: { type: 'string' },
        residentKey: { type: 'string' },
        requireResidentKey: { type: 'boolean' },
        userVerification: { type: 'string' },
      },
    },
    attestation: { type: 'string' },
    hints: { type: 'array', items: { type: 'string' } },
    extensions: { type: 'object', additionalProperties: true },
  },
};

export const requestOptionsSchema: Schema = {
  type: 'object',
  description: 'PublicKeyCredentialRequestOptionsJSON, for navigator.credentials.get() (or the platform passkey API)',
  additionalProperties: true,
  properties: {
    challenge: { type: 'string' },
    timeout: { type: 'integer' },
    rpId: { type: 'string' },
    allowCredentials: { type: 'array', items: credentialDescriptor },
    userVerification: { type: 'string' },
    hints: { type: 'array', items: { type: 'string' } },
    extensions: { type: 'object', additionalProperties: true },
  },
};

export const passkeySchema: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    credential_id: { type: 'string' },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
    transports: { type: 'array', items: { type: 'string' } },
    device_type: { type: 'string', enum: ['singleDevice', 'multiDevice'] },
    backed_up: { type: 'boolean' },
  },
};

const signInProps = {
  ...tokenProps,
  biometric: { type: 'boolean' },
  credential_id: { type: 'string' },
};

/** The login response (tokens at the top level and in data), plus biometric and the credential id. */
export const signInResponse: Schema = {
  type: 'object',
  properties: { data: { type: 'object', properties: signInProps }, ...signInProps },
};

export const sessionSchema: Schema = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    credential: { type: 'string', enum: ['api_key', 'session'] },
    environment: { type: 'string' },
    biometric: { type: 'boolean' },
  },
};

export function presentPasskey(k: Passkey) {
  return {
    id: k.id,
    name: k.name,
    credential_id: k.credentialId,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    transports: k.transports,
    device_type: k.deviceType,
    backed_up: k.backedUp,
  };
}
