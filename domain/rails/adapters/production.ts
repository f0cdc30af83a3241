/**
 * Production rails. No payment network offers an HTTP API a platform can call directly: Fedwire
 * and FedNow are reached through FedLine (IBM MQ) with a Federal Reserve account, RTP through a
 * TCH participant, ACH as NACHA files over SFTP to the ODFI/FedACH, SEPA through a PSP's EBA
 * STEP2/RT1/TIPS access (or EBICS), SWIFT through Alliance Lite2 or a service bureau. In practice
 * a platform goes through its sponsor bank or a payments provider, each with its own API.
 *
 * So production uses the platform's own **rail-gateway contract** (below), which the operator
 * implements in a small bridge service in front of whatever connectivity they have. It is a
 * contract of this platform, not of any bank or vendor. Selected with RAILS_GATEWAY_URL and
 * RAILS_GATEWAY_TOKEN; without them every call throws RAIL_NOT_CONFIGURED (the payment fails and
 * its reservation is voided): production never pretends.
 *
 * Contract (all requests `Authorization: Bearer <RAILS_GATEWAY_TOKEN>`; POSTs that send money
 * carry `Idempotency-Key`, which the bridge must honour because activities are retried):
 * - POST {url}/rails/{rail}/submit
 *     ISO rails: body pacs.008 (`application/xml`) → 200 with a pacs.002 (ACSC, ACSP or RJCT + reason).
 *     ACH: body the 94-character entry detail record (`text/plain`) → 200 with the bridge's
 *     reference (`text/plain`); the entry is only queued: money moves when its file is sent.
 * - POST {url}/rails/{rail}/status  `{"end_to_end_id", "trace_number", "ach_file_transmitted"}`
 *     → 200 with the latest pacs.002, or an empty body while there is none (ACH: a pacs.002 ACSC
 *     once FedACH settled the entry).
 * - POST {url}/rails/ach/returns  `{"trace_number"}` → 200 with a NACHA return file (addenda 99)
 *     containing the entry's return, or an empty body.
 * - POST {url}/rails/ach/files  body the NACHA file (`text/plain`) → 200 with the operator's
 *     acknowledgement id (`text/plain`).
 * A 4xx answer is a refusal (not retried); 5xx and network errors are retried by the workflow.
 * Rails can also push: pacs.002 to POST /api/v1/payment-rails/status-reports and return files
 * to POST /api/v1/payment-rails/ach/returns (operator credentials).
 */
import { createHash } from 'node:crypto';
import { readPacs002 } from '../messages';
import { RailAdapterNotConfigured, RailGatewayRefused, type RailAdapter, type RailSettlementStatus, type RailSubmission, type RailSubmitResult } from './types';

export class GatewayRailAdapter implements RailAdapter {
  readonly name = 'rail-gateway';
  constructor(
    private readonly url = process.env.RAILS_GATEWAY_URL,
    private readonly token = process.env.RAILS_GATEWAY_TOKEN,
  ) {}

  /** Whether the settings this adapter needs are present (the selection in adapters/index.ts). */
  static configured(): boolean {
    return !!process.env.RAILS_GATEWAY_URL && !!process.env.RAILS_GATEWAY_TOKEN;
  }

  private async call(path: string, body: string, contentType: string, idempotencyKey?: string): Promise<string> {
    if (!this.url || !this.token) throw new RailAdapterNotConfigured('Production payment rails are not configured: set RAILS_GATEWAY_URL and RAILS_GATEWAY_TOKEN (see docs/rails.md)');
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, 'content-type': contentType };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const r = await fetch(new URL(path, this.url), { method: 'POST', headers, body, signal: AbortSignal.timeout(20_000) });
    const text = await r.text();
    if (r.status >= 400 && r.status < 500) throw new RailGatewayRefused(`rail gateway refused ${path} with ${r.status}: ${text.slice(0, 200)}`);
    if (!r.ok) throw new Error(`rail gateway answered ${r.status} for ${path}`);
    return text;
  }

  async submit(s: RailSubmission): Promise<RailSubmitResult> {
    const isAch = s.rail.startsWith('ach');
    const answer = await this.call(`/rails/${s.rail}/submit`, s.message, isAch ? 'text/plain' : 'application/xml', `submit:${s.paymentId}`);
    if (isAch) return { accepted: true, networkReference: answer.trim(), statusReport: null, reasonCode: null, reason: null, settled: false };
    const st = readPacs002(answer);
    return { accepted: st.status !== 'RJCT', networkReference: st.originalEndToEndId ?? s.paymentId, statusReport: answer, reasonCode: st.reasonCode, reason: null, settled: st.status === 'ACSC' };
  }

  async settlementStatus(s: RailSubmission): Promise<RailSettlementStatus> {
    const answer = await this.call(`/rails/${s.rail}/status`, JSON.stringify({ end_to_end_id: s.endToEndId, trace_number: s.traceNumber, ach_file_transmitted: s.achFileTransmitted }), 'application/json');
    if (!answer.trim()) return { status: 'pending', statusReport: null, reasonCode: null };
    const st = readPacs002(answer);
    return { status: st.status === 'ACSC' ? 'settled' : st.status === 'RJCT' ? 'rejected' : 'pending', statusReport: answer, reasonCode: st.reasonCode };
  }

  async returns(s: RailSubmission): Promise<string | null> {
    const answer = await this.call(`/rails/ach/returns`, JSON.stringify({ trace_number: s.traceNumber }), 'application/json');
    return answer.trim() ? answer : null;
  }

  async transmitFile(content: string): Promise<string> {
    const key = `file:${createHash('sha256').update(content).digest('hex')}`;
    return (await this.call('/rails/ach/files', content, 'text/plain', key)).trim();
  }
}

/** Production without a configured rail integration: every call fails with RAIL_NOT_CONFIGURED. */
export class UnconfiguredRailAdapter implements RailAdapter {
  readonly name = 'not-configured';
  private fail(): never {
    throw new RailAdapterNotConfigured('Production payment rails are not configured: set RAILS_GATEWAY_URL and RAILS_GATEWAY_TOKEN (see docs/rails.md)');
  }
  async submit(): Promise<RailSubmitResult> {
    this.fail();
  }
  async settlementStatus(): Promise<RailSettlementStatus> {
    this.fail();
  }
  async returns(): Promise<string | null> {
    this.fail();
  }
  async transmitFile(): Promise<string> {
    this.fail();
  }
}
