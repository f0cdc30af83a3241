import type { FastifyInstance } from 'fastify';
import { getPool } from '../../../domain/db/pool';
import { pingTemporal } from '../../../domain/temporal/client';
import { publicErrorResponses } from '../../schemas';

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
        response: { 200: { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } }, ...publicErrorResponses },
      },
    },
    async () => ({ data: { status: 'ok', uptime_seconds: Math.floor((Date.now() - started) / 1000) } }),
  );

  app.get(
    '/api/ready',
    {
      config: { public: true },
      schema: {
        tags: ['System'],
        summary: 'Readiness: database and Temporal reachable (503 names what is down)',
        security: [],
        response: {
          200: { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } },
          ...publicErrorResponses,
          503: { ...publicErrorResponses['503'], description: 'Database or Temporal unreachable: meta.components says which' },
        },
      },
    },
    async (_request, reply) => {
      const checks = await Promise.all([
        getPool()
          .query('SELECT 1')
          .then(() => ({ name: 'database', ok: true }))
          .catch((e: Error) => ({ name: 'database', ok: false, error: e.message })),
        pingTemporal()
          .then(() => ({ name: 'temporal', ok: true }))
          .catch((e: Error) => ({ name: 'temporal', ok: false, error: e.message })),
      ]);
      const components = Object.fromEntries(checks.map((c) => [c.name, c.ok ? 'up' : 'down']));
      const down = checks.filter((c) => !c.ok);
      if (down.length === 0) return { data: { status: 'ready', components } };
      return reply.code(503).send({
        data: null,
        errors: down.map((c) => ({
          status: '503',
          code: 'DEPENDENCY_UNAVAILABLE',
          title: 'Service Unavailable',
          detail: `${c.name} is not reachable`,
          meta: { component: c.name },
        })),
        meta: { components, request_id: reply.request.id },
      });
    },
  );

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
