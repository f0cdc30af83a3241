/**
 * GraphQL over the platform (docs/graphql.md): `POST|GET /api/graphql` (mercurius on this Fastify
 * app), subscriptions over WebSocket on the same path (graphql-transport-ws, ./ws.ts) and the
 * offline explorer at `GET /api/graphql-playground` (./playground.ts). Each area module under
 * ./areas resolves through the same domain functions as its REST routes.
 *
 * The route is public with an optional credential: a guest may run what needs none (introspection)
 * under the guest rate limit; every field that reads or changes data asks for the principal and
 * its permission in its resolver (./context.ts). Errors carry the REST code (./errors.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLResolveInfo } from 'graphql';
import { BASE_RESOLVERS, BASE_SDL } from './base';
import { mutationFieldContext, newContext, type GqlContext } from './context';
import { baseUrlOf } from '../operations/caller';
import { errorResponses } from '../schemas';
import { formatError, gqlError } from './errors';
import { checkLimits, checkText, mutationCount } from './limits';
import { graphqlRateLimit } from '../plugins/rate-limit';
import { loadConfig } from '../../domain/platform/config';
import { playgroundRoute } from './playground';
import { subscriptionsArea } from './subscriptions';
import { AREAS } from './areas';
import type { GraphQLArea } from './areas/types';
import { startSubscriptionServer } from './ws';

export const GRAPHQL_PATH = '/api/graphql';

type Resolver = (parent: unknown, args: unknown, ctx: GqlContext, info: GraphQLResolveInfo) => unknown;

function mergeAreas(areas: GraphQLArea[]): { sdl: string; resolvers: Record<string, Record<string, unknown>> } {
  const resolvers: Record<string, Record<string, unknown>> = {};
  for (const a of areas) {
    for (const [type, fields] of Object.entries(a.resolvers)) resolvers[type] = { ...(resolvers[type] ?? {}), ...fields };
  }
  // Each mutation field runs with an Idempotency-Key of its own (mutationFieldContext).
  resolvers.Mutation = Object.fromEntries(
    Object.entries(resolvers.Mutation ?? {}).map(([name, fn]) => [
      name,
      (parent: unknown, args: unknown, ctx: GqlContext, info: GraphQLResolveInfo) => (fn as Resolver)(parent, args, mutationFieldContext(ctx, info), info),
    ]),
  );
  return { sdl: [BASE_SDL, ...areas.map((a) => a.typeDefs)].join('\n'), resolvers };
}

/** The whole schema's SDL and resolvers (docs/graphql/schema.graphql is printed from it). */
export function graphqlDefinition(app: FastifyInstance) {
  return mergeAreas([...AREAS.map((area) => area(app)), subscriptionsArea]);
}

interface GqlBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

const bodySchema = {
  type: 'object',
  properties: {
    query: { type: 'string', maxLength: 100_000 },
    variables: { type: ['object', 'null'] },
    operationName: { type: ['string', 'null'], maxLength: 200 },
  },
};

function send(reply: FastifyReply, status: number, result: { data?: unknown; errors?: readonly GraphQLError[] }, log: (e: unknown) => void) {
  const errors = result.errors?.map((e) => formatError(e, log));
  // A field refused for a passing cause (the database saturated, an internal error) makes the
  // document's answer no final one: an Idempotency-Key is released for the retry, as REST's 5xx.
  if (errors?.some((e) => Number(e.extensions?.status) >= 500 || Number(e.extensions?.status) === 429)) reply.request.answerNotFinal = true;
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ ...(result.data !== undefined ? { data: result.data } : {}), ...(errors?.length ? { errors } : {}) });
}

async function execute(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, input: GqlBody) {
  const log = (e: unknown) => request.log.error({ err: e }, 'graphql resolver failed');
  if (typeof input.query !== 'string' || input.query.trim() === '') {
    return send(reply, 400, { errors: [new GraphQLError('A query string is required', { extensions: { code: 'GRAPHQL_PARSE_FAILED', status: 400 } })] }, log);
  }
  const variables = (input.variables ?? undefined) as Record<string, unknown> | undefined;
  const operationName = typeof input.operationName === 'string' ? input.operationName : undefined;
  const partnerKey = request.headers['x-partner-key'];
  const ctx = newContext(request.principal ?? null, request.ip, {
    idempotencyKey: request.idempotencyKey,
    idempotencyScope: request.idempotencyScope,
    partnerKey: Array.isArray(partnerKey) ? partnerKey[0] : partnerKey,
    baseUrl: baseUrlOf(request),
  }) as GqlContext & { operationName?: string };
  ctx.operationName = operationName;
  try {
    const result = (await reply.graphql(input.query, ctx as never, variables, operationName)) as ExecutionResult;
    return send(reply, 200, result, log);
  } catch (err) {
    // Syntax, validation, limits and GET mutations: the document is refused, nothing ran.
    // The limits (preExecution hook) throw their GraphQLError as is.
    if (err instanceof GraphQLError) return send(reply, Number(err.extensions?.status) || 400, { errors: [err] }, log);
    const e = err as { errors?: GraphQLError[]; statusCode?: number };
    if (Array.isArray(e.errors)) return send(reply, e.statusCode && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 400, { errors: e.errors }, log);
    throw err;
  }
}

export async function registerGraphQL(app: FastifyInstance): Promise<void> {
  const { sdl, resolvers } = graphqlDefinition(app);
  // mercurius wires Subscription resolvers only for its own transport; ours (./ws.ts) needs them on the schema.
  const { Subscription: subscriptionResolvers, ...rest } = resolvers;
  await app.register(mercurius, {
    schema: sdl,
    resolvers: { ...BASE_RESOLVERS, ...rest } as never,
    routes: false,
    graphiql: false,
    // Compile a query to JavaScript (graphql-jit) from its second run: repeated queries skip the interpreter.
    jit: 1,
    // Resolver errors keep their REST code (./errors.ts); mercurius applies this to every result with errors.
    errorFormatter: (execution, context) => ({
      statusCode: 200,
      response: {
        data: execution.data ?? null,
        errors: (execution.errors ?? []).map((e) => formatError(e as GraphQLError, (err) => (context as { reply?: FastifyReply }).reply?.request.log.error({ err }, 'graphql resolver failed'))) as never,
      },
    }),
  });
  const subscriptionFields = app.graphql.schema.getSubscriptionType()?.getFields() ?? {};
  for (const [name, r] of Object.entries(subscriptionResolvers ?? {})) subscriptionFields[name].subscribe = (r as { subscribe: never }).subscribe;
  // Depth and cost before anything runs (./limits.ts); the same check guards WebSocket subscribes.
  app.graphql.addHook('preExecution', async (schema, document: DocumentNode, context, variables) => {
    const operationName = (context as { operationName?: string }).operationName;
    checkLimits(schema, document, variables as Record<string, unknown> | undefined, operationName);
    checkText(document, variables as Record<string, unknown> | undefined);
    // The request counted once against the GraphQL bucket (api/plugins/rate-limit.ts); each further
    // mutation of the document counts too, before any of them runs.
    const extra = mutationCount(document, operationName) - 1;
    const request = (context as { reply?: FastifyReply }).reply?.request;
    if (extra > 0 && request) {
      const limit = graphqlRateLimit(request.principal, request.ip, loadConfig());
      const hit = await app.rateLimiter.hit(limit.key, limit.windows, extra);
      if (!hit.allowed) {
        throw gqlError('RATE_LIMITED', `The document's ${extra + 1} mutations exceed the rate limit (each counts as one operation); retry after ${hit.retryAfter} seconds`, 429);
      }
    }
  });

  const gqlResult = {
    type: 'object',
    additionalProperties: true,
    properties: { data: { description: 'The selected data (null when nothing ran)' }, errors: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  };
  // Every answer of this endpoint is a GraphQL response, refusals before execution included
  // (authentication, rate limit, a body that is not JSON: api/plugins/errors.ts graphqlRefusal).
  const asGraphQL = (r: { description?: string }) => ({ description: r.description, content: { 'application/json': { schema: gqlResult } } });
  const routeSchema = {
    tags: ['GraphQL'],
    response: {
      ...Object.fromEntries(Object.entries(errorResponses).map(([status, r]) => [status, asGraphQL(r as { description?: string })])),
      200: { description: 'A GraphQL result: `data`, and `errors` whose `extensions` carry the REST code and status', content: { 'application/json': { schema: gqlResult } } },
      400: asGraphQL({ description: 'A document that does not parse or validate, or over the depth or cost limit; a body that is not JSON' }),
      422: asGraphQL({ description: 'A string holding U+0000' }),
      429: asGraphQL({ description: 'Over the rate limit: the request itself, or a document whose mutations, one operation each, exceed it' }),
    },
    summary: 'GraphQL endpoint: queries and mutations over every area (docs/graphql.md)',
    description:
      'Body: `query` (a GraphQL document), `variables`, `operationName`; GET takes them as query parameters (queries only). Every answer is a GraphQL ' +
      'result `{ data, errors }` (never the REST envelope), refusals before execution included (credentials, rate limit: `errors` with a `message` each ' +
      'and no `data`); each error carries the REST error code and status in `extensions`. Credentials as on REST ' +
      '(optional: a guest may introspect); 120 operations a minute per credential, 30 per IP for guests; depth at most 10, cost at most 10,000. ' +
      'Subscriptions: WebSocket on this path, protocol graphql-transport-ws. The schema: docs/graphql/schema.graphql.',
  };
  // Mutations ask the gate themselves (api/graphql/context.ts `as`): a maintenance window holds them, not the queries posted here.
  const config = { public: true, optionalAuth: true, permission: 'read' as const, graphql: true, gatedPerOperation: true };
  app.post<{ Body: GqlBody }>(GRAPHQL_PATH, { config, schema: { ...routeSchema, body: bodySchema } }, (request, reply) => execute(app, request, reply, request.body ?? {}));
  app.get<{ Querystring: { query?: string; variables?: string; operationName?: string } }>(
    GRAPHQL_PATH,
    {
      config,
      schema: {
        ...routeSchema,
        description:
          routeSchema.description +
          ' GET is for short queries: percent-encoded, the whole request line must stay under the server\'s 16 KiB header limit, so query ≤ 1,000 characters, ' +
          'variables ≤ 250, operationName ≤ 50 (POST takes 100,000). Mutations are refused over GET (405).',
        querystring: { type: 'object', properties: { query: { type: 'string', maxLength: 1000 }, variables: { type: 'string', maxLength: 250 }, operationName: { type: 'string', maxLength: 50 } } },
      },
    },
    async (request, reply) => {
      let variables: unknown;
      try {
        variables = request.query.variables ? JSON.parse(request.query.variables) : undefined;
      } catch {
        variables = Symbol('invalid');
      }
      if (typeof variables === 'symbol') {
        return send(reply, 400, { errors: [new GraphQLError('variables must be a JSON object', { extensions: { code: 'GRAPHQL_PARSE_FAILED', status: 400 } })] }, () => undefined);
      }
      return execute(app, request, reply, { query: request.query.query, variables, operationName: request.query.operationName });
    },
  );
  playgroundRoute(app);
  startSubscriptionServer(app, GRAPHQL_PATH);
}
