/**
 * Tool results of the MCP server (api/mcp/server.ts): what a tool answers, and how a refusal
 * looks. MCP's counterpart of api/plugins/errors.ts: a refusal (the one mapping,
 * domain/platform/refusal.ts) becomes a tool result with isError and the same stable code the REST
 * envelope would carry; anything else is INTERNAL_ERROR with nothing
 * internal in it, and is handed to the transport's logger.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transaction } from '../../domain/ledger/transactions';
import { refusalOf as refusalOfError } from '../../domain/platform/refusal';

/**
 * What the transport gives the tools: the request id, its error logging (the route's request
 * logger), and the wire shape of a transaction (the REST presenter, so both transports answer
 * the same shape from one definition).
 */
export interface McpToolContext {
  requestId: string;
  logError(err: unknown): void;
  presentTransaction(t: Transaction): Record<string, unknown>;
}

/** A successful result: the JSON both as structuredContent and as text (clients without structured output read the text). */
export function toolResult(structured: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A refusal: isError, with the object (the error, or an x402 PaymentRequired) as structuredContent and as text. */
export function toolError(structured: Record<string, unknown>): CallToolResult {
  return { ...toolResult(structured), isError: true };
}

export interface ToolRefusal {
  code: string;
  message: string;
  /** JSON pointer into the tool's arguments, when the refusal is about one. */
  pointer?: string;
}

/** The code, message and pointer of a refusal, from the one mapping every transport uses (domain/platform/refusal.ts); undefined for anything else. */
export function refusalOf(err: unknown): ToolRefusal | undefined {
  const r = refusalOfError(err);
  return r && { code: r.code, message: r.message, ...(r.pointer ? { pointer: r.pointer } : {}) };
}

export function refusedResult(r: ToolRefusal): CallToolResult {
  return toolError({ error: r });
}

/**
 * Runs a tool body: domain refusals become isError results with their code; an unexpected failure
 * is logged and answered as INTERNAL_ERROR (the SDK would otherwise put the raw message in the result).
 */
export async function guarded(ctx: McpToolContext, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const r = refusalOf(err);
    if (r) return refusedResult(r);
    ctx.logError(err);
    return refusedResult({ code: 'INTERNAL_ERROR', message: `An unexpected error occurred. Quote request id ${ctx.requestId} when contacting support.` });
  }
}
