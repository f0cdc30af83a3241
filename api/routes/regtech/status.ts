/** GET /regtech/status: the frameworks and what they did in the caller's environment. */
import type { FastifyInstance } from 'fastify';
import { regtechStatus } from '../../../domain/regtech/status';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

const framework = { type: 'object', additionalProperties: true, properties: { active: { type: 'boolean' } } };

export default async function regtechStatusRoutes(app: FastifyInstance) {
  app.get(
    '/api/v2/regtech/status',
    {
      schema: {
        tags: ['Regtech'],
        summary: 'Status across the regulatory frameworks',
        description:
          'travel_rule: your checks (compliant, not compliant, last); sanctions: the loaded list (version, load time, age, counts) and your ' +
          'violations in the last 30 days; mica: your checks and the size of the register; mifid_ii: your transaction reports by status, how many were flagged past their T+1 deadline, and the last one.',
        response: {
          200: envelope({
            type: 'object',
            properties: {
              frameworks: { type: 'object', properties: { travel_rule: framework, sanctions: framework, mifid_ii: framework, mica: framework } },
              checked_at: { type: 'string', format: 'date-time' },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ data: await regtechStatus(principalOf(request)) }),
  );
}
