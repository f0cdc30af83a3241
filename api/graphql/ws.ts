/**
 * GraphQL subscriptions over WebSocket on /api/graphql, protocol graphql-transport-ws, served by
 * graphql-ws (the protocol's reference server: it closes a subscribe before the ack with 4401, a
 * duplicate operation id with 4409, a second connection_init with 4429, a silent socket after
 * CONNECTION_INIT_WAIT_MS with 4408). mercurius's own subscription transport does not implement
 * those codes, so the WebSocket runs beside it on the same schema.
 *
 * The credential comes in connection_init's payload, `{ "Authorization": "Bearer …" }` (or
 * `authorization`), checked as an HTTP request's would be (api/plugins/auth.ts principalFromBearer);
 * a refused one closes the socket with 4403. Every subscribe passes the depth and cost limits and
 * counts against the credential's GraphQL rate limit (429 in the error's extensions when spent).
 */
import type { FastifyInstance } from 'fastify';
import { parse, subscribe, execute, validate, specifiedRules, GraphQLError, type ExecutionArgs } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Principal } from '../../domain/auth/principal';
import { loadConfig } from '../../domain/platform/config';
import { principalFromBearer } from '../plugins/auth';
import { graphqlRateLimit } from '../plugins/rate-limit';
import { newContext } from './context';
import { formatError } from './errors';
import { checkLimits, checkText } from './limits';

export const CONNECTION_INIT_WAIT_MS = 10_000;

interface Extra {
  principal?: Principal;
  ip?: string;
}

function bearerOf(params: Record<string, unknown> | undefined): string | undefined {
  const v = params?.Authorization ?? params?.authorization ?? (params?.headers as Record<string, unknown> | undefined)?.authorization;
  return typeof v === 'string' ? v : undefined;
}

export function startSubscriptionServer(app: FastifyInstance, path: string): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  const cfg = loadConfig();
  const options: ServerOptions<Record<string, unknown>, Extra & { request: { socket: { remoteAddress?: string } } }> = {
    schema: app.graphql.schema,
    connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
    onConnect: async (ctx) => {
      ctx.extra.ip = ctx.extra.request.socket.remoteAddress ?? '';
      try {
        ctx.extra.principal = await principalFromBearer(bearerOf(ctx.connectionParams), ctx.extra.ip ?? '');
        return true;
      } catch {
        return false; // 4403 Forbidden
      }
    },
    onSubscribe: async (ctx, _id, payload) => {
      const principal = ctx.extra.principal!;
      const limit = graphqlRateLimit(principal, ctx.extra.ip ?? '', cfg);
      const hit = await app.rateLimiter.hit(limit.key, limit.windows);
      if (!hit.allowed) return [new GraphQLError(`Rate limit exceeded; retry after ${hit.retryAfter} seconds`, { extensions: { code: 'RATE_LIMITED', status: 429 } })];
      let document;
      try {
        document = parse(payload.query);
      } catch (err) {
        return [err as GraphQLError];
      }
      const errors = validate(app.graphql.schema, document, specifiedRules);
      if (errors.length) return errors;
      try {
        checkLimits(app.graphql.schema, document, payload.variables ?? undefined, payload.operationName);
        checkText(document, payload.variables ?? undefined);
      } catch (err) {
        return [err as GraphQLError];
      }
      const args: ExecutionArgs = {
        schema: app.graphql.schema,
        document,
        variableValues: payload.variables,
        operationName: payload.operationName,
        contextValue: newContext(principal, ctx.extra.ip ?? ''),
      };
      return args;
    },
    execute: (args) => execute(args),
    subscribe: (args) => subscribe(args),
    onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: result.errors.map((e) => formatError(e as GraphQLError)) } : result) as never,
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e)),
  };
  useServer(options as never, wss);

  app.server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  app.addHook('onClose', async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((res) => wss.close(() => res()));
  });
}
