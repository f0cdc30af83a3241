import type { FastifyInstance } from 'fastify';
import { collectSnapshot } from '../../../domain/observability';
import { presentPrometheus } from '../../operations/metrics/presenters';
import { metricsResponse, PROMETHEUS_CONTENT_TYPE } from '../../operations/metrics/schemas';

export default async function metricsRoutes(app: FastifyInstance) {
  app.get(
    '/api/metrics',
    {
      // Platform-wide volumes of every tenant: operators only (scrape with an admin API key as bearer token).
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Prometheus metrics of the event stream, webhook deliveries and the process (platform operators only)',
        description: 'Text exposition format 0.0.4; the same measured figures as /api/v1/live-dashboard.',
        response: metricsResponse,
      },
    },
    async (_request, reply) => reply.type(PROMETHEUS_CONTENT_TYPE).send(presentPrometheus(await collectSnapshot())),
  );
}
