import type { FastifyInstance } from 'fastify';
import { becomeFirstOperator } from '../../../domain/auth/self';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { presentUser } from '../../operations/operators/presenters';
import { bootstrapBody, userSchema } from '../../operations/operators/schemas';

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
        body: bootstrapBody,
        response: { 200: envelope(userSchema), ...errorResponses },
      },
    },
    async (request) => ({ data: presentUser(await becomeFirstOperator(principalOf(request), request.body.token)) }),
  );
}
