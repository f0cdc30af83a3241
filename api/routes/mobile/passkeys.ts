/**
 * Passkeys (WebAuthn) of the mobile app (spec: POST /mobile/auth/passkey/verify; authentication
 * rule 7). A signed-in user registers and manages passkeys; anyone may ask for sign-in options and
 * present an assertion, which starts a biometric login session. Every refused assertion is the same
 * 401 PASSKEY_VERIFICATION_FAILED; why is logged at debug level only (docs/mobile.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { passkeyAuthenticationOptions, signInWithPasskey, type PasskeyAssertion } from '../../../domain/mobile/passkey-sign-in';
import { deletePasskey, listPasskeys, passkeyRegistrationOptions, registerPasskey, type PasskeyRefusal } from '../../../domain/mobile/passkeys';
import type { Environment } from '../../../domain/platform/environment';
import { DomainError } from '../../../domain/platform/errors';
import { ApiError } from '../../errors';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import {
  authenticationOptionsBody,
  creationOptionsSchema,
  idParams,
  passkeySchema,
  passkeyVerifyBody,
  presentPasskey,
  registrationVerifyBody,
  requestOptionsSchema,
  sessionSchema,
  signInResponse,
  TAGS,
} from '../../operations/mobile/passkey-schemas';

/**
 * The one answer to every refused assertion, whatever the reason (unknown credential included).
 * A 401 is part of the sign-in protocol, so it is answered here, as a refused password login is
 * (api/operations/auth/presenters.ts); api/error-status.ts maps domain codes to 403/404/409/503 only.
 */
const verificationFailed = () => new ApiError(401, 'PASSKEY_VERIFICATION_FAILED', 'The passkey could not be verified');
const registrationFailed = () => new DomainError('PASSKEY_REGISTRATION_FAILED', 'The passkey could not be registered; request new options and try again');

/** The reason of a refusal goes to the debug log only: never to the caller, never a secret. */
function logRefusal(request: FastifyRequest, what: string, r: PasskeyRefusal): void {
  request.log.debug({ reason: r.reason, detail: r.detail }, `${what} refused`);
}

export default async function passkeyRoutes(app: FastifyInstance) {
  app.post(
    '/api/v2/mobile/auth/passkeys/registration/options',
    {
      config: { idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Options for registering a passkey (WebAuthn creation options)',
        description:
          'A fresh single-use challenge (valid WEBAUTHN_CHALLENGE_TTL_SECONDS), the caller\'s existing passkeys in excludeCredentials, a discoverable credential preferred, user verification required when WEBAUTHN_REQUIRE_UV is on. At most 20 passkeys per user (422 PASSKEY_LIMIT_REACHED).',
        response: { 200: envelope(creationOptionsSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: await passkeyRegistrationOptions(principalOf(request)) }),
  );

  app.post<{ Body: { response: RegistrationResponseJSON; name?: string } }>(
    '/api/v2/mobile/auth/passkeys/registration/verify',
    {
      config: { idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Register a passkey from the authenticator\'s response',
        description:
          'Verifies the attestation (challenge issued to this user and unused, origin, RP ID, flags, public key) and stores the credential. Any refusal is 422 PASSKEY_REGISTRATION_FAILED.',
        body: registrationVerifyBody,
        response: { 201: envelope(passkeySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await registerPasskey(principalOf(request), request.body);
      if (!result.ok) {
        logRefusal(request, 'passkey registration', result);
        throw registrationFailed();
      }
      return reply.code(201).send({ data: presentPasskey(result.passkey) });
    },
  );

  app.get(
    '/api/v2/mobile/auth/passkeys',
    {
      schema: { tags: TAGS, summary: "The caller's passkeys", response: { 200: envelope({ type: 'array', items: passkeySchema }), ...errorResponses } },
    },
    async (request) => ({ data: (await listPasskeys(principalOf(request))).map(presentPasskey) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/mobile/auth/passkeys/:id',
    {
      schema: { tags: TAGS, summary: 'Remove one of the caller\'s passkeys', params: idParams, response: { 204: { type: 'null', description: 'Removed' }, ...errorResponses } },
    },
    async (request, reply) => {
      await deletePasskey(principalOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v2/mobile/auth/session',
    {
      schema: {
        tags: TAGS,
        summary: 'How the caller is authenticated (biometric: a passkey session)',
        response: { 200: envelope(sessionSchema), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: { user_id: p.userId, credential: p.kind, environment: p.environment, biometric: p.biometric === true } };
    },
  );

  app.post<{ Body: { email?: string } | undefined }>(
    '/api/v2/mobile/auth/passkey/options',
    {
      config: { public: true, idempotency: false },
      // The body is optional: a client without an email may send none at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: TAGS,
        summary: 'Options for signing in with a passkey (WebAuthn request options)',
        description:
          'A fresh single-use challenge. With the email of a user, allowCredentials lists their passkeys; otherwise it is empty (the device offers its discoverable credentials). The answer has the same shape whether or not the email belongs to a user.',
        security: [],
        body: authenticationOptionsBody,
        response: { 200: envelope(requestOptionsSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: await passkeyAuthenticationOptions(request.body?.email) }),
  );

  app.post<{ Body: PasskeyAssertion & { environment?: Environment } }>(
    '/api/v2/mobile/auth/passkey/verify',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Sign in with a passkey: verify the assertion and receive tokens',
        description:
          'The binary fields in standard base64 or base64url. The challenge quoted in client_data_json must be a sign-in challenge this server issued, unused and unexpired; origin (WEBAUTHN_ORIGINS), RP ID (WEBAUTHN_RP_ID), type, user presence and verification (WEBAUTHN_REQUIRE_UV), signature and signature counter are checked. ' +
          'Success: the login response (access and refresh tokens of a session marked biometric) plus biometric: true and the credential id. Every refusal, an unknown credential included, is 401 PASSKEY_VERIFICATION_FAILED.',
        security: [],
        body: passkeyVerifyBody,
        response: { 200: signInResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { environment = 'sandbox', ...assertion } = request.body;
      const result = await signInWithPasskey(assertion, environment);
      if (!result.ok) {
        logRefusal(request, 'passkey sign-in', result);
        throw verificationFailed();
      }
      const body = { ...result.tokens, biometric: true, credential_id: result.credentialId };
      return { data: body, ...body };
    },
  );
}
