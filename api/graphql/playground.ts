/**
 * GET /api/graphql-playground: GraphiQL served entirely by the platform. mercurius's own GraphiQL
 * loads React and GraphiQL from a CDN; @graphql-yoga/render-graphiql renders one page with every
 * asset inlined, so the explorer works with no internet. Subscriptions go over WebSocket
 * (graphql-transport-ws) to /api/graphql; the headers editor takes `Authorization: Bearer …`.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { publicErrorResponses } from '../schemas';

// Loaded untyped: the package's typings pull graphql-yoga's, which add the DOM's fetch types to the
// whole program (and Node's Buffer stops being a BodyInit everywhere).
const renderGraphiQL = createRequire(import.meta.url)('@graphql-yoga/render-graphiql').renderGraphiQL as (opts: Record<string, unknown>) => string;

let page: string | null = null;

// Rendered once: the page is several megabytes of inlined script.
function playgroundPage(): string {
  page ??= renderGraphiQL({
    endpoint: '/api/graphql',
    subscriptionsProtocol: 'WS',
    title: 'Platform GraphQL explorer',
    headers: JSON.stringify({ Authorization: 'Bearer <API key or access token>' }, null, 2),
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
    defaultQuery: '# The caller and its accounts (set the Authorization header below)\nquery {\n  me { email environment permissions }\n  accounts(perPage: 10) {\n    data { id name status balances { assetCode available } }\n    paginatorInfo { total currentPage lastPage }\n  }\n}\n',
  });
  return page;
}

export function playgroundRoute(app: FastifyInstance): void {
  app.get(
    '/api/graphql-playground',
    {
      config: { public: true },
      schema: {
        tags: ['GraphQL'],
        summary: 'Interactive GraphQL explorer (HTML, works offline)',
        security: [],
        response: { 200: { description: 'GraphiQL, every asset inlined', content: { 'text/html': { schema: { type: 'string' } } } }, ...publicErrorResponses },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        // The inlined page needs its own inline script and style, and GraphiQL's editor workers from blob: URLs.
        .header(
          'content-security-policy',
          "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self' ws: wss:",
        )
        .send(playgroundPage()),
  );
}
