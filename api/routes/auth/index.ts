import type { FastifyInstance } from 'fastify';
import { checkLogin, getUser, registerUser, toPublicUser } from '../../../domain/auth/users';
import { refreshSession, revokeSession, startSession } from '../../../domain/auth/sessions';
import { ENVIRONMENTS, type Environment } from '../../../domain/platform/environment';
import { ApiError, notFound } from '../../errors';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

/** A user as the API shows it (toPublicUser); shared with the operator routes. */
export const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    is_admin: { type: 'boolean' },
    created_at: { type: 'string' },
  },
};

const tokenProps = {
  access_token: { type: 'string' },
  token_type: { type: 'string' },
  expires_in: { type: 'integer' },
  refresh_token: { type: 'string' },
  refresh_expires_in: { type: 'integer' },
  environment: { type: 'string' },
};

// OAuth 2.0 clients read the token at the top level; envelope clients read data.
const tokenResponse = {
  type: 'object',
  properties: { data: { type: 'object', properties: tokenProps }, ...tokenProps },
};

export default async function authRoutes(app: FastifyInstance) {
  app.post<{ Body: { name: string; email: string; password: string; password_confirmation: string } }>(
    '/api/auth/register',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: ['Authentication'],
        summary: 'Create a user',
        description: 'Passwords need at least 12 characters and are stored with scrypt (memory-hard).',
        security: [],
        body: {
          type: 'object',
          required: ['name', 'email', 'password', 'password_confirmation'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            email: { type: 'string', format: 'email', maxLength: 254 },
            password: { type: 'string', minLength: 12, maxLength: 1024 },
            password_confirmation: { type: 'string', maxLength: 1024 },
          },
        },
        response: { 201: envelope(userSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      if (b.password !== b.password_confirmation) {
        throw new ApiError(422, 'VALIDATION_ERROR', 'password_confirmation does not match password', {
          source: { pointer: '/password_confirmation' },
        });
      }
      const user = await registerUser(b.name, b.email, b.password);
      if (!user) {
        throw new ApiError(422, 'EMAIL_TAKEN', 'An account with this email already exists', { source: { pointer: '/email' } });
      }
      return reply.code(201).send({ data: toPublicUser(user) });
    },
  );

  app.post<{ Body: { email: string; password: string; environment?: Environment } }>(
    '/api/auth/login',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: ['Authentication'],
        summary: 'Log in and receive an access token (JWT) and a refresh token',
        description:
          'The access token acts in the chosen environment (default sandbox). Repeated failures for an email from one source address, or many failures from one address across emails, are throttled with growing back-off (429 TOO_MANY_LOGIN_ATTEMPTS with Retry-After); failures elsewhere never lock a user out (docs/security.md).',
        security: [],
        body: {
          type: 'object',
          required: ['email', 'password'],
          additionalProperties: false,
          properties: {
            email: { type: 'string', maxLength: 254 },
            password: { type: 'string', maxLength: 1024 },
            environment: { type: 'string', enum: [...ENVIRONMENTS], default: 'sandbox' },
          },
        },
        response: { 200: tokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { email, password, environment = 'sandbox' } = request.body;
      const result = await checkLogin(email, password, request.ip);
      if (!result.ok) {
        if (result.reason === 'locked') {
          throw new ApiError(429, 'TOO_MANY_LOGIN_ATTEMPTS', 'Too many failed logins; try again later', {
            headers: { 'retry-after': String(result.retryAfter ?? 60) },
          });
        }
        throw new ApiError(401, 'INVALID_CREDENTIALS', 'Email or password is incorrect');
      }
      const tokens = await startSession(result.userId, environment);
      return { data: tokens, ...tokens };
    },
  );

  app.post<{ Body: { refresh_token: string } }>(
    '/api/auth/refresh',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: ['Authentication'],
        summary: 'Exchange a refresh token for new tokens (the refresh token rotates)',
        description: 'Presenting a refresh token that was already rotated away revokes the whole session (its access and refresh tokens).',
        security: [],
        body: {
          type: 'object',
          required: ['refresh_token'],
          additionalProperties: false,
          properties: { refresh_token: { type: 'string', maxLength: 200 } },
        },
        response: { 200: tokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const tokens = await refreshSession(request.body.refresh_token);
      if (!tokens) throw new ApiError(401, 'INVALID_REFRESH_TOKEN', 'The refresh token is invalid, expired or already used');
      return { data: tokens, ...tokens };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { idempotency: false },
      schema: { tags: ['Authentication'], summary: 'End the login session of the access token', response: errorResponses },
    },
    async (request, reply) => {
      const p = principalOf(request);
      if (p.kind !== 'session') {
        throw new ApiError(422, 'NOT_A_LOGIN_SESSION', 'Logout ends a login session; revoke API keys under /api/v2/api-keys');
      }
      await revokeSession(p.credentialId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/auth/user',
    { schema: { tags: ['Authentication'], summary: 'The authenticated user', response: { 200: envelope(userSchema), ...errorResponses } } },
    async (request) => {
      const p = principalOf(request);
      const user = await getUser(p.userId);
      if (!user) throw notFound('User');
      return { data: toPublicUser(user), meta: { environment: p.environment, credential: p.kind } };
    },
  );
}
