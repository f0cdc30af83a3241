/**
 * The MCP server (api/mcp/server.ts) over the Streamable HTTP transport of the official SDK, at
 * POST /mcp (docs/mcp.md). Stateless: every POST gets a new server and transport for its caller, so
 * nothing about a client is kept between requests and any API instance answers any request. GET
 * (a server-to-client event stream) and DELETE (ending a session) have nothing to do without
 * sessions: the router answers them 405 with the envelope and Allow: POST, as MCP's stateless
 * servers do.
 *
 * Authentication, rate limits, request ids and the body checks are the platform's, before the SDK
 * sees the request. Everything the SDK's transport would refuse (Accept, content type, a
 * message that is not JSON-RPC, an unknown protocol version) is refused here first with the
 * envelope, so its answers are the two documented ones: 200 with the JSON-RPC response
 * (application/json) and 202 for a notification.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildMcpServer } from '../../mcp/server';
import { ApiError, titleFor } from '../../errors';
import { errorEnvelopeSchema, errorResponsesFor } from '../../schemas';
import { principalOf } from '../../types';
import { presentTransaction } from '../../operations/transactions/presenters';

export const MCP_PATH = '/mcp';
const TAGS = ['MCP'];

const requestId = { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'integer' }] };

const body = {
  type: 'object',
  additionalProperties: false,
  required: ['jsonrpc', 'method'],
  description: 'One JSON-RPC 2.0 request (with id: answered with 200) or notification (without id: 202). Batches are not accepted.',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { ...requestId, description: 'Present on requests, absent on notifications' },
    method: { type: 'string', minLength: 1, maxLength: 200, description: 'initialize, tools/list, tools/call, ping, notifications/initialized, …' },
    params: { type: 'object', additionalProperties: true, description: 'For tools/call: name, arguments and, for a paid tool, _meta["x402/payment"]' },
  },
  example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balances', arguments: {} } },
};

const headers = {
  type: 'object',
  properties: {
    'mcp-protocol-version': { type: 'string', enum: SUPPORTED_PROTOCOL_VERSIONS, description: 'The protocol version negotiated at initialize (MCP clients send it on later requests)' },
  },
};

const jsonRpcResponse = {
  type: 'object',
  description: 'The JSON-RPC response: result, or error (an unknown method, invalid tool arguments). A tool that refuses answers a result with isError.',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    result: { type: 'object', additionalProperties: true },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }, additionalProperties: true },
  },
  additionalProperties: true,
};

const responses = {
  200: { description: 'The JSON-RPC response to the request', content: { 'application/json': { schema: jsonRpcResponse } } },
  202: { description: 'The notification was accepted (no body)', type: 'null' },
  // The conventions' statuses but 402: a refused payment is a tool result (isError), never an HTTP answer here.
  ...errorResponsesFor([400, 401, 403, 404, 405, 409, 413, 414, 415, 422, 429, 500, 503]),
  406: {
    description: 'Accept must list both application/json and text/event-stream (MCP Streamable HTTP)',
    content: { 'application/json': { schema: errorEnvelopeSchema } },
  },
};

/** What the SDK's transport requires of Accept (it answers JSON here, but MCP clients must offer both). */
function acceptsMcp(accept: string | undefined): boolean {
  return !!accept && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** The SDK's own check of the message, so its transport never refuses what passed here. */
function checkMessage(request: FastifyRequest): void {
  if (!acceptsMcp(request.headers.accept)) {
    throw new ApiError(406, 'NOT_ACCEPTABLE', 'Accept must list both application/json and text/event-stream (MCP Streamable HTTP)', {
      title: 'Not Acceptable',
      source: { header: 'accept' },
    });
  }
  if (!JSONRPCMessageSchema.safeParse(request.body).success) {
    throw new ApiError(422, 'VALIDATION_ERROR', 'The body is not a JSON-RPC 2.0 request or notification of MCP', { source: { pointer: '/' } });
  }
}

async function serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  checkMessage(request);
  const server = buildMcpServer(principalOf(request), {
    requestId: request.id,
    logError: (err) => request.log.error({ err }, 'MCP tool failed'),
    presentTransaction,
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // The SDK writes the response itself: keep the headers the plugins set (request id, rate limits).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (err) {
    request.log.error({ err }, 'MCP transport failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      const detail = `An unexpected error occurred. Quote request id ${request.id} when contacting support.`;
      reply.raw.end(JSON.stringify({ data: null, errors: [{ status: '500', code: 'INTERNAL_ERROR', title: titleFor(500), detail }], meta: { request_id: request.id } }));
    } else reply.raw.end();
  }
}

export default async function mcpRoutes(app: FastifyInstance) {
  app.post(
    MCP_PATH,
    {
      // Reading tools need only the read permission; each tool asks the gate for what it needs (send_sms: write,
      // held by a maintenance window like any write; the read tools keep working during one).
      // No Idempotency-Key handling: a JSON-RPC id is not an idempotency key (clients reuse small ids per
      // connection), and the one paid tool is idempotent by its payment (an authorization's nonce settles once).
      config: { permission: 'read', idempotency: false, gatedPerOperation: true },
      schema: {
        tags: TAGS,
        summary: 'MCP server (Streamable HTTP, stateless): tools get_balances, list_transactions, get_sms_rate and send_sms (paid with x402)',
        description:
          'Model Context Protocol over HTTP for agents, with the platform\'s credentials (Authorization: Bearer API key or login token; the tools act in ' +
          "the credential's environment). Connect with any MCP client's Streamable HTTP transport; each POST carries one JSON-RPC message and " +
          'is answered with application/json. GET and DELETE are 405 (no sessions). The read permission is enough for the read tools; send_sms needs ' +
          'write and is paid per the x402 MCP convention: PaymentRequired in the isError tool result, the PaymentPayload in params._meta["x402/payment"], ' +
          'the settlement in result._meta["x402/payment-response"] (docs/mcp.md).',
        headers,
        body,
        response: responses,
      },
    },
    serve,
  );
}
