import type { FastifyInstance } from 'fastify';
import apiKeyRoutes from './api-keys';
import authRoutes from './auth';
import systemRoutes from './system';

/** Every route area of the API. Each lives in api/routes/<area>/index.ts. */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(systemRoutes);
  await app.register(authRoutes);
  await app.register(apiKeyRoutes);
}
