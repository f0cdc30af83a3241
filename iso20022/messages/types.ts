import type { XObj } from '../build';
import type { Agent, Party } from '../common';
import type { XEl } from '../xml';

export type Json = Record<string, unknown>;

/** Candidate sender/receiver for a head.001 AppHdr when the caller does not name them. */
export interface HeaderParties {
  from?: { agent?: Agent; party?: Party };
  to?: { agent?: Agent; party?: Party };
}

export interface BuildResult {
  /** Content of `Document` (its single child keyed by the message root element). */
  document: XObj;
  /** Identifiers and totals of the generated message, returned to the caller. */
  summary: Json & { message_id?: string };
  header: HeaderParties;
}

export interface MessageHandler {
  parse(root: XEl, version: string): Json;
  build(input: Json, version: string): BuildResult;
}
