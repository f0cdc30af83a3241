/**
 * The platform's MCP server (Model Context Protocol, official SDK): the tools an agent may call
 * with the platform's credentials, built for one authenticated principal. Transport-free: the
 * HTTP mounting (Streamable HTTP, stateless, a new server per request) is api/routes/mcp.
 *
 * Tools (docs/mcp.md): get_balances, list_transactions, get_sms_rate (read) and send_sms (paid
 * with x402, needs the write permission). Each calls the same domain functions as its REST twin,
 * in the credential's environment and with the REST routes' isolation.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../../domain/auth/principal';
import type { McpToolContext } from './results';
import { registerReadTools } from './tools-read';
import { registerSmsTools } from './tools-sms';

export type { McpToolContext } from './results';
export { PAYMENT_META_KEY, PAYMENT_REFUSALS, PAYMENT_RESPONSE_META_KEY, SEND_SMS_RESOURCE_URL } from './tools-sms';

export const MCP_SERVER_INFO = { name: 'banking-platform', title: 'Multi-asset banking platform', version: '2.0.0' } as const;

const INSTRUCTIONS =
  "Tools act for the API key or login token that authenticates the HTTP request, in that credential's environment (sandbox or production). " +
  'Amounts are decimal strings. send_sms is paid with x402: call it, pay one of the requirements the PaymentRequired result lists, and call it ' +
  'again with the PaymentPayload in _meta["x402/payment"].';

export function buildMcpServer(principal: Principal, ctx: McpToolContext): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  registerReadTools(server, principal, ctx);
  registerSmsTools(server, principal, ctx);
  return server;
}
