import type { FastifyInstance } from 'fastify';
import { cancelMaintenance, listMaintenance, maintenanceStatus, scheduleMaintenance, type MaintenanceWindow } from '../../../domain/platform/maintenance-windows';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

const windowSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: 'string', format: 'date-time' },
    message: { type: 'string' },
    status: { type: 'string', enum: ['scheduled', 'in_progress', 'ended', 'cancelled'] },
    created_at: { type: 'string', format: 'date-time' },
    cancelled_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

const scheduleBody = {
  type: 'object',
  required: ['starts_at', 'ends_at', 'message'],
  additionalProperties: false,
  properties: {
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: 'string', format: 'date-time' },
    message: { type: 'string', minLength: 1, maxLength: 500 },
  },
};

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

function present(w: MaintenanceWindow) {
  const status = maintenanceStatus(w);
  return {
    id: w.id,
    environment: w.environment,
    starts_at: w.startsAt.toISOString(),
    ends_at: w.endsAt.toISOString(),
    message: w.message,
    status,
    created_at: w.createdAt.toISOString(),
    cancelled_at: w.cancelledAt?.toISOString() ?? null,
  };
}

/** Planned maintenance windows of the key's environment (platform operators only). */
export default async function maintenanceRoutes(app: FastifyInstance) {
  const tags = ['Operations'];
  app.post<{ Body: { starts_at: string; ends_at: string; message: string } }>(
    '/api/v1/operators/maintenance',
    {
      config: { admin: true },
      schema: {
        tags,
        summary: 'Schedule a maintenance window (platform operators only)',
        description:
          'system.maintenance_start is sent at starts_at and system.maintenance_end at ends_at (environment-wide). In between, writes ' +
          '(POST/PUT/PATCH/DELETE, except authentication and operator routes) are answered 503 MAINTENANCE with Retry-After; reads work.',
        body: scheduleBody,
        response: { 201: envelope(windowSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const b = request.body;
      const w = await scheduleMaintenance({ environment: p.environment, startsAt: new Date(b.starts_at), endsAt: new Date(b.ends_at), message: b.message, createdBy: p.userId });
      return reply.code(201).send({ data: present(w) });
    },
  );

  app.get(
    '/api/v1/operators/maintenance',
    {
      config: { admin: true },
      schema: { tags, summary: 'Maintenance windows not ended yet, soonest first (platform operators only)', response: { 200: envelope({ type: 'array', items: windowSchema }), ...errorResponses } },
    },
    async (request) => ({ data: (await listMaintenance(principalOf(request).environment)).map(present) }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/operators/maintenance/:id',
    {
      config: { admin: true },
      schema: { tags, summary: 'Cancel a maintenance window; one in progress ends now (platform operators only)', params: idParams, response: { 200: envelope(windowSchema), ...errorResponses } },
    },
    async (request) => ({ data: present(await cancelMaintenance(principalOf(request).environment, request.params.id)) }),
  );
}
