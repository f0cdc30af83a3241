import type { FastifyInstance } from 'fastify';
import { currentUser, endLoginSession, signUp } from '../../../domain/auth/self';
import { refreshSession, startSession } from '../../../domain/auth/sessions';
import { checkLogin } from '../../../domain/auth/users';
import type { Environment } from '../../../domain/platform/environment';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { invalidRefreshToken, loginRefusal, presentTokens, presentUser } from '../../operations/auth/presenters';
import { checkPasswordConfirmation, loginBody, refreshBody, registerBody, tokenResponse, userSchema } from '../../operations/auth/schemas';

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
        body: registerBody,
        response: { 201: envelope(userSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const b = request.body;
      checkPasswordConfirmation(b);
      const user = await signUp(b.name, b.email, b.password);
      return reply.code(201).send({ data: presentUser(user) });
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
        body: loginBody,
        response: { 200: tokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { email, password, environment = 'sandbox' } = request.body;
      const result = await checkLogin(email, password, request.ip);
      if (!result.ok) throw loginRefusal(result);
      return presentTokens(await startSession(result.userId, environment));
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
        body: refreshBody,
        response: { 200: tokenResponse, ...errorResponses },
      },
    },
    async (request) => {
      const tokens = await refreshSession(request.body.refresh_token);
      if (!tokens) throw invalidRefreshToken();
      return presentTokens(tokens);
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { idempotency: false },
      schema: { tags: ['Authentication'], summary: 'End the login session of the access token', response: { 204: { type: 'null', description: 'Session ended' }, ...errorResponses } },
    },
    async (request, reply) => {
      await endLoginSession(principalOf(request));
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/auth/user',
    { schema: { tags: ['Authentication'], summary: 'The authenticated user', response: { 200: envelope(userSchema), ...errorResponses } } },
    async (request) => {
      const p = principalOf(request);
      return { data: presentUser(await currentUser(p)), meta: { environment: p.environment, credential: p.kind } };
    },
  );
}
