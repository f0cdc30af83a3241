/** Wire schemas of the system area (liveness, readiness). Public: no credentials. */
import { errorEnvelopeSchema, publicErrorResponses } from '../../schemas';

const dataObject = { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } };

export const healthResponse = { 200: dataObject, ...publicErrorResponses };

const componentStatus = { type: 'string', enum: ['up', 'down', 'saturated'] };
const components = {
  type: 'object',
  description: 'Each component: up, down, or (database) saturated: it answers, but no pooled connection came free within DB_ACQUIRE_TIMEOUT_MS',
  properties: { database: componentStatus, temporal: componentStatus },
  additionalProperties: true,
};
const databasePool = {
  type: 'object',
  description: "This process's database pool: connections open (total), idle among them, requests waiting for one, and its size (max, DB_POOL_MAX)",
  properties: { total: { type: 'integer' }, idle: { type: 'integer' }, waiting: { type: 'integer' }, max: { type: 'integer' } },
};

export const readyResponse = {
  200: {
    type: 'object',
    properties: {
      data: {
        type: 'object',
        properties: { status: { type: 'string', enum: ['ready'] }, components, database_pool: databasePool },
        additionalProperties: true,
      },
    },
  },
  ...publicErrorResponses,
  503: {
    description:
      'Database or Temporal unreachable (DEPENDENCY_UNAVAILABLE), or the database saturated (DATABASE_SATURATED): meta.components says which, meta.database_pool shows the pool',
    content: {
      'application/json': {
        schema: {
          ...errorEnvelopeSchema,
          properties: {
            ...(errorEnvelopeSchema.properties as Record<string, unknown>),
            meta: {
              type: 'object',
              properties: { request_id: { type: 'string' }, components, database_pool: databasePool },
              additionalProperties: true,
            },
          },
        },
      },
    },
  },
};
