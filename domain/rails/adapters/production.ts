/**
 * Production rails go through the bank partner's payment gateway (RAILS_GATEWAY_URL with a
 * bearer token RAILS_GATEWAY_TOKEN): pacs.008 / NACHA in, pacs.002 / acknowledgements out.
 * Without those settings every call throws RAIL_NOT_CONFIGURED: production never pretends.
 */
import { RailAdapterNotConfigured, type RailAdapter, type RailSettlementStatus, type RailSubmission, type RailSubmitResult } from './types';
import { readPacs002 } from '../messages';

export class GatewayRailAdapter implements RailAdapter {
  readonly name = 'gateway';
  constructor(
    private readonly url = process.env.RAILS_GATEWAY_URL,
    private readonly token = process.env.RAILS_GATEWAY_TOKEN,
  ) {}

  private async call(path: string, body: string, contentType: string): Promise<string> {
    if (!this.url || !this.token) throw new RailAdapterNotConfigured('Production payment rails are not configured (RAILS_GATEWAY_URL, RAILS_GATEWAY_TOKEN)');
    const r = await fetch(new URL(path, this.url), { method: 'POST', headers: { authorization: `Bearer ${this.token}`, 'content-type': contentType }, body });
    if (!r.ok) throw new Error(`rail gateway answered ${r.status}`);
    return r.text();
  }

  async submit(s: RailSubmission): Promise<RailSubmitResult> {
    const isAch = s.rail.startsWith('ach');
    const answer = await this.call(`/rails/${s.rail}/submit`, s.message, isAch ? 'text/plain' : 'application/xml');
    if (isAch) return { accepted: true, networkReference: answer.trim(), statusReport: null, reasonCode: null, reason: null, settled: false };
    const st = readPacs002(answer);
    return { accepted: st.status !== 'RJCT', networkReference: st.originalEndToEndId ?? s.paymentId, statusReport: answer, reasonCode: st.reasonCode, reason: null, settled: st.status === 'ACSC' };
  }

  async settlementStatus(s: RailSubmission): Promise<RailSettlementStatus> {
    const answer = await this.call(`/rails/${s.rail}/status`, JSON.stringify({ end_to_end_id: s.endToEndId, trace_number: s.traceNumber }), 'application/json');
    if (!answer.trim()) return { status: 'pending', statusReport: null, reasonCode: null };
    const st = readPacs002(answer);
    return { status: st.status === 'ACSC' ? 'settled' : st.status === 'RJCT' ? 'rejected' : 'pending', statusReport: answer, reasonCode: st.reasonCode };
  }

  async returns(s: RailSubmission): Promise<string | null> {
    const answer = await this.call(`/rails/ach/returns`, JSON.stringify({ trace_number: s.traceNumber }), 'application/json');
    return answer.trim() ? answer : null;
  }

  async transmitFile(content: string): Promise<string> {
    return (await this.call('/rails/ach/files', content, 'text/plain')).trim();
  }
}
