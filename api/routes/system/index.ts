import type { FastifyInstance } from 'fastify';
import { checkReadiness } from '../../../domain/platform/readiness';
import { presentHealth, presentReadiness } from '../../operations/system/presenters';
import { healthResponse, readyResponse } from '../../operations/system/schemas';

const started = Date.now();

export default async function systemRoutes(app: FastifyInstance) {
  app.get(
    '/api/health',
    {
      config: { public: true },
      schema: {
        tags: ['System'],
        summary: 'Liveness: the process is up',
        security: [],
        response: healthResponse,
      },
    },
    async () => ({ data: presentHealth(started) }),
  );

  app.get(
    '/api/ready',
    {
      config: { public: true },
      schema: {
        tags: ['System'],
        summary: 'Readiness: database and Temporal reachable (503 names what is down)',
        security: [],
        response: readyResponse,
      },
    },
    async (request, reply) => {
      const { status, body } = presentReadiness(await checkReadiness(), request.id);
      if (status === 200) return body;
      return reply.code(503).send(body);
    },
  );

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
