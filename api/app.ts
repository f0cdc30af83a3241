import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import './types';
import { getPool } from '../domain/db/pool';
import { startCacheNotices } from '../domain/events/cache-notices';
import { loadConfig } from '../domain/platform/config';
import { createRateLimiter, type RateLimiter } from '../domain/platform/rate-limiter';
import { createTransferService, type TransferService } from '../domain/transfers';
import { registerAuth, registerAuthEnforcement } from './plugins/auth';
import { registerErrorHandling } from './plugins/errors';
import { purgeExpiredIdempotencyKeys, registerIdempotency } from './plugins/idempotency';
import { registerOpenApi } from './plugins/openapi';
import { cachedSerializerFactory } from './plugins/serializers';
import { registerRateLimit } from './plugins/rate-limit';
import { registerValidation, ROUTER_MAX_PARAM_LENGTH } from './plugins/validation';
import { registerX402 } from './plugins/x402';
import { registerRoutes } from './routes';
import { registerGraphQL } from './graphql';
import { provideOpenApiDocumentSource, type OpenApiDocument } from '../domain/partner/sdk/spec';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildAppOptions {
  logger?: boolean;
  rateLimiter?: RateLimiter;
  /** The transfer service the routes use; by default one on the process's pool. */
  transfers?: TransferService;
  /** Where log lines go (default stdout); tests read them to check what is redacted. */
  logStream?: NodeJS.WritableStream;
}

/** The whole HTTP API: conventions (plugins) first, then every route area. */
export async function buildApp(opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const cfg = loadConfig();
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: cfg.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            // Secrets never reach the logs, whatever a serializer adds later.
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers["x-partner-key"]',
                // Signed payment authorizations are bearer instruments until settled.
                'req.headers["payment-signature"]',
                'req.headers["x-payment-signature"]',
                'req.headers["x-payment-payload"]',
                'req.headers["x-twilio-signature"]',
                'req.headers.cookie',
                '*.password',
                '*.password_confirmation',
                '*.secret',
                '*.refresh_token',
                '*.access_token',
              ],
              censor: '[redacted]',
            },
          },
    bodyLimit: cfg.bodyLimitBytes,
    trustProxy: cfg.trustProxy,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory() } },
    // Over-long ids reach the hooks and are refused there with the envelope (api/plugins/validation.ts).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: ROUTER_MAX_PARAM_LENGTH },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Services are built once here and reach the routes as decorations.
  app.decorate('transfers', opts.transfers ?? createTransferService({ pool: getPool(), config: cfg }));

  const limiter = opts.rateLimiter ?? createRateLimiter(cfg.redisUrl);
  app.decorate('rateLimiter', limiter);
  registerValidation(app);
  registerErrorHandling(app);
  await registerOpenApi(app);
  registerAuth(app);
  registerRateLimit(app, limiter, cfg);
  registerAuthEnforcement(app);
  registerIdempotency(app);
  registerX402(app);
  await registerRoutes(app);
  await registerGraphQL(app);
  // SDK generation reads the platform's OpenAPI document: this app's (domain/partner/sdk/spec.ts).
  provideOpenApiDocumentSource(
    async () => {
      await app.ready();
      return app.swagger() as unknown as OpenApiDocument;
    },
    { ifAbsent: true },
  );

  const purge = setInterval(() => purgeExpiredIdempotencyKeys().catch(() => undefined), 10 * 60_000);
  purge.unref();
  // Revocations made by other processes evict this one's cached keys, TPPs, partner settings and
  // prices; until it listens, those are looked up on every request (domain/events/cache-notices.ts).
  const notices = startCacheNotices();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    await notices.stop();
    if (!opts.rateLimiter) await limiter.close();
  });
  return app;
}
