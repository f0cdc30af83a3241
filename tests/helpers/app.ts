import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../../api/app';
import { createApiKey } from '../../domain/auth/api-keys';
import type { Permission } from '../../domain/auth/principal';
import { registerUser } from '../../domain/auth/users';
import { closePool } from '../../domain/db/pool';
import { closePrisma, getPrisma } from '../../domain/db/prisma';
import { MemoryRateLimiter } from '../../domain/platform/rate-limiter';
import type { Environment } from '../../domain/platform/environment';
import { closeTemporal } from '../../domain/temporal/client';
import { useTestDatabase } from './db';

let counter = 0;

export interface TestUser {
  userId: string;
  email: string;
  password: string;
  key: string;
  headers: Record<string, string>;
}

/** Registers a user and gives them an API key; `headers` carries the Authorization. */
export async function createTestUser(
  opts: { environment?: Environment; permissions?: Permission[]; admin?: boolean; ipAllowlist?: string[] } = {},
): Promise<TestUser> {
  const email = `user${++counter}.${Date.now()}@example.test`;
  const password = 'correct horse battery staple';
  const user = await registerUser(`Test User ${counter}`, email, password);
  if (!user) throw new Error('could not create test user');
  if (opts.admin) await getPrisma().user.update({ where: { id: user.id }, data: { isAdmin: true } });
  const { value } = await createApiKey({
    userId: user.id,
    name: 'test key',
    environment: opts.environment ?? 'sandbox',
    permissions: opts.permissions ?? ['read', 'write', 'delete'],
    ipAllowlist: opts.ipAllowlist,
  });
  return { userId: user.id, email, password, key: value, headers: { authorization: `Bearer ${value}` } };
}

export interface TestApp {
  app: FastifyInstance;
  headers: Record<string, string>;
  user: TestUser;
  close(): Promise<void>;
}

/**
 * The full API on this test file's own database, with a sandbox user and API key. Temporal
 * points at the run's dev server. Rate limits are high unless a test sets them.
 */
export async function createTestApp(
  opts: { rateLimitPerMinute?: number; rateLimitPerHour?: number; graphqlRateLimitPerMinute?: number; graphqlGuestRateLimitPerMinute?: number } = {},
): Promise<TestApp> {
  await useTestDatabase();
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.JWT_SECRET ??= 'test-secret-that-is-long-enough-for-hs256-signing';
  process.env.SDK_LINK_SECRET ??= 'test-sdk-link-secret-long-enough-to-sign-links';
  process.env.RATE_LIMIT_PER_MINUTE = String(opts.rateLimitPerMinute ?? 100_000);
  process.env.RATE_LIMIT_PER_HOUR = String(opts.rateLimitPerHour ?? 1_000_000);
  process.env.GRAPHQL_RATE_LIMIT_PER_MINUTE = String(opts.graphqlRateLimitPerMinute ?? 100_000);
  process.env.GRAPHQL_GUEST_RATE_LIMIT_PER_MINUTE = String(opts.graphqlGuestRateLimitPerMinute ?? 100_000);
  process.env.LOG_LEVEL = 'silent';
  const app = await buildApp({ logger: false, rateLimiter: new MemoryRateLimiter() });
  await app.ready();
  const user = await createTestUser();
  return {
    app,
    headers: user.headers,
    user,
    async close() {
      await app.close();
      await closeTemporal();
      await closePrisma();
      await closePool();
    },
  };
}
