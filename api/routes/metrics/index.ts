import type { FastifyInstance } from 'fastify';
import { collectSnapshot } from '../../../domain/observability';
import { toPrometheus } from '../../../domain/observability/prometheus';
import { errorResponses } from '../../schemas';

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
        // Metrics are text; every error (401 without an operator's key, 429, ...) is the JSON envelope.
        response: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses },
      },
    },
    async (_request, reply) => {
      const text = toPrometheus(await collectSnapshot());
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
    },
  );
}
