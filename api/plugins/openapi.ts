import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

const DESCRIPTION = `Multi-asset banking platform API.

Conventions shared by every endpoint:
- Responses use the envelope \`{data, meta, links, errors}\`. Errors carry \`status\`, \`code\`, \`title\`, \`detail\` and \`source\` (\`pointer\` into the body, \`parameter\` or \`header\`).
- Status codes: 400 malformed body, 401 missing/invalid/expired credentials, 403 missing permission or IP not allowed, 404 unknown resource (including another user's), 409 idempotency conflict, 413 body too large, 415 unsupported content type, 422 validation or business rule, 429 rate limited (Retry-After), 500 with a request id.
- Authentication: \`Authorization: Bearer <key>\` with an API key (fak_, sk_sandbox_, sk_live_) or a login access token. The key's environment (sandbox or production) selects the data you see.
- Permissions: GET needs read, POST/PUT/PATCH write, DELETE delete.
- Idempotency: send \`Idempotency-Key\` on POST/PUT/PATCH. The same key with the same body replays the stored response (header \`Idempotent-Replayed: true\`); with a different body, or while the first request runs, 409. Keys are scoped per credential and kept 24 hours; 5xx answers release the key.
- Rate limits per credential: 100 requests per minute (burst) and 1,000 per hour, sliding windows; X-RateLimit-Limit/Remaining/Reset describe the window closest to exhaustion.
- Money: amounts are decimal strings with at most the asset's precision; zero, negative and malformed amounts are refused.
- Pagination: \`page\` (default 1), \`per_page\` (default 20, max 100); \`meta\` and \`links\` as documented.`;

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Multi-Asset Banking Platform API', version: '2.0.0', description: DESCRIPTION },
      servers: [{ url: '/' }],
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
