import { loadConfig } from '../../domain/platform/config';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

const DESCRIPTION = `Multi-asset banking platform API.

Conventions shared by every endpoint:
- Responses use the envelope \`{data, meta, links, errors}\`. Errors carry \`status\`, \`code\`, \`title\`, \`detail\` and \`source\` (\`pointer\` into the body, \`parameter\` or \`header\`).
- Status codes: 400 malformed body, 401 missing/invalid/expired credentials, 403 missing permission or IP not allowed, 404 unknown resource (including another user's), 409 idempotency conflict, 413 body too large, 415 unsupported content type, 422 validation or business rule, 429 rate limited (Retry-After), 500 with a request id, 503 a dependency unavailable (nothing was done) or DATABASE_SATURATED: no database connection free within DB_ACQUIRE_TIMEOUT_MS (Retry-After).
- Authentication: \`Authorization: Bearer <key>\` with an API key (fak_, sk_sandbox_, sk_live_) or a login access token. The key's environment (sandbox or production) selects the data you see.
- Permissions: GET needs read, POST/PUT/PATCH write, DELETE delete.
- Idempotency: send \`Idempotency-Key\` on POST/PUT/PATCH. The same key with the same body replays the stored response (header \`Idempotent-Replayed: true\`); with a different body, or while the first request runs, 409. Keys are scoped per credential and kept 24 hours; 5xx answers release the key.
- Rate limits per credential: 100 requests per minute (burst) and 1,000 per hour, sliding windows; X-RateLimit-Limit/Remaining/Reset describe the window closest to exhaustion.
- Money: amounts are decimal strings with at most the asset's precision; zero, negative and malformed amounts are refused.
- Pagination: \`page\` (default 1), \`per_page\` (default 20, max 100); \`meta\` and \`links\` as documented.`;

type Operation = { operationId?: string };

const VERSIONED = /^\/api\/v\d+\//;
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const pascal = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/**
 * The operationId of a route that does not name its own: the method, then the path after /api and
 * its version, a parameter as By<Name>, and the version as a suffix unless it is v2, the published
 * base (GET /api/v2/accounts/{uuid}/balances -> getAccountsByUuidBalances, POST /api/v1/defi/swap/quote
 * -> postDefiSwapQuoteV1). SDK generators name their functions after it.
 */
export function operationIdFor(method: string, url: string): string {
  const version = /^\/api\/(v\d+)\//.exec(url)?.[1];
  const words = url
    .replace(/^\/api\/(v\d+\/)?/, '')
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `By_${seg.slice(1, -1)}` : seg));
  return method.toLowerCase() + words.map(pascal).join('') + (version && version !== 'v2' ? version.toUpperCase() : '');
}

/**
 * Gives every operation an operationId (a route's own schema.operationId wins). An unversioned
 * path whose id a versioned twin already has (GET /api/accounts beside GET /api/v2/accounts) gets
 * the suffix Unversioned; any further clash a number, in path order, so ids stay unique and stable.
 */
export function withOperationIds<T extends object>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  const ops = Object.entries(paths).flatMap(([url, item]) =>
    Object.entries(item).filter(([m]) => METHODS.has(m)).map(([method, op]) => ({ url, method, op })),
  );
  const taken = new Set(ops.map((o) => o.op.operationId).filter((id): id is string => !!id));
  // Versioned paths first, so the unversioned twin is the one that yields.
  const unnamed = ops.filter((o) => !o.op.operationId);
  const ordered = [...unnamed.filter((o) => VERSIONED.test(o.url)), ...unnamed.filter((o) => !VERSIONED.test(o.url))];
  for (const o of ordered) {
    let id = operationIdFor(o.method, o.url);
    if (taken.has(id) && !VERSIONED.test(o.url)) id += 'Unversioned';
    for (let n = 2; taken.has(id); n++) id = `${operationIdFor(o.method, o.url)}${n}`;
    taken.add(id);
    o.op.operationId = id;
  }
  return doc;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    transformObject: (d) => ('openapiObject' in d ? withOperationIds(d.openapiObject) : d.swaggerObject),
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Multi-Asset Banking Platform API', version: '2.0.0', description: DESCRIPTION },
      // Every path in this document is absolute from the host (/api/v2/…, /api/v1/…, /api/…), so the
      // server is the host itself: PUBLIC_URL when set, else this server. Its description says where
      // the API lives, which is what Swagger UI's "Servers" box shows.
      servers: [
        {
          url: loadConfig().publicUrl.replace(/\/$/, '') || '/',
          description: 'The API root is /api; the published base address ({base_url}) is /api/v2, beside the /api/v1 rows and the unversioned core rows the spec lists',
        },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (fak_, sk_sandbox_, sk_live_) or login access token' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/documentation', uiConfig: { docExpansion: 'list' } });
}
