import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../domain/auth/principal';
import type { Config } from '../../domain/platform/config';
import type { RateLimiter } from '../../domain/platform/rate-limiter';
import { warnRateLimitCrossings } from '../../domain/platform/rate-limit-warnings';
import { ApiError } from '../errors';

/**
 * Per API key (or login session; per client IP before authentication): RATE_LIMIT_PER_MINUTE
 * burst and RATE_LIMIT_PER_HOUR, both sliding windows. X-RateLimit-* headers on every response
 * describe the window closest to exhaustion. Partner keys: their own per-minute and 10-second burst limits.
 */
/**
 * GraphQL's own bucket (route config `graphql`, and every WebSocket subscribe): GRAPHQL_RATE_LIMIT_PER_MINUTE
 * (120) operations a minute per credential, GRAPHQL_GUEST_RATE_LIMIT_PER_MINUTE (30) per IP for guests.
 */
export function graphqlRateLimit(p: Principal | undefined | null, ip: string, cfg: Config): { key: string; windows: Array<{ limit: number; windowSeconds: number }> } {
  return p
    ? { key: `gql:cred:${p.credentialId}`, windows: [{ limit: cfg.graphqlRateLimitPerMinute, windowSeconds: 60 }] }
    : { key: `gql:ip:${ip}`, windows: [{ limit: cfg.graphqlGuestRateLimitPerMinute, windowSeconds: 60 }] };
}

export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter, cfg: Config): void {
  app.addHook('onRequest', async (request, reply) => {
    const p = request.principal;
    const gql = request.routeOptions.config?.graphql ? graphqlRateLimit(p, request.ip, cfg) : null;
    const key = gql?.key ?? (p ? `cred:${p.credentialId}` : `ip:${request.ip}`);
    const perMinute = p?.rateLimitPerMinute ?? cfg.rateLimitPerMinute;
    const perHour = Math.max(cfg.rateLimitPerHour, perMinute);
    // A partner's keys (domain/partner) run on the partner's own rate: requests per minute and a
    // burst limit over any 10 seconds, instead of the platform's hourly cap.
    const windows = gql
      ? gql.windows
      : p?.partnerId && p.burstLimit
        ? [
            { limit: perMinute, windowSeconds: 60 },
            { limit: p.burstLimit, windowSeconds: 10 },
          ]
        : [
            { limit: perMinute, windowSeconds: 60 },
            { limit: perHour, windowSeconds: 3600 },
          ];
    const r = await limiter.hit(key, windows);
    // Crossing 80 % of a window (once per window; see domain/platform/rate-limit-warnings.ts).
    if (r.crossed && p) {
      await warnRateLimitCrossings({ credentialId: p.credentialId, kind: p.kind, userId: p.userId, environment: p.environment }, r.crossed).catch(() => undefined);
    }
    reply.header('x-ratelimit-limit', String(r.limit));
    reply.header('x-ratelimit-remaining', String(r.remaining));
    reply.header('x-ratelimit-reset', String(r.reset));
    if (!r.allowed) {
      throw new ApiError(429, 'RATE_LIMITED', `Rate limit exceeded; retry after ${r.retryAfter} seconds`, {
        headers: { 'retry-after': String(r.retryAfter) },
      });
    }
  });
}
