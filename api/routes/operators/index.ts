import type { FastifyInstance } from 'fastify';
import { redeemBootstrapToken } from '../../../domain/auth/operators';
import { getUser, toPublicUser } from '../../../domain/auth/users';
import { notFound } from '../../errors';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { userSchema } from '../auth';

export default async function operatorRoutes(app: FastifyInstance) {
  app.post<{ Body: { token: string } }>(
    '/api/v2/operators/bootstrap',
    {
      config: { idempotency: false },
      schema: {
        tags: ['Authentication'],
        summary: 'Become the first platform operator with the one-time bootstrap token printed by `npm start`',
        description:
          'Only with a login access token, only while no operator exists, and only once: a wrong, used or expired token, ' +
          'or any token once an operator exists, is 403 INVALID_BOOTSTRAP_TOKEN. Further operators: `npm run operator -- grant <email>`.',
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
        },
        response: { 200: envelope(userSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { userId } = await redeemBootstrapToken(principalOf(request), request.body.token);
      const user = await getUser(userId);
      if (!user) throw notFound('User');
      return { data: toPublicUser(user) };
    },
  );
}
