import type { RailName } from '../calendar';
import type { CreditorAccount } from '../routing';

/** What the workflow hands a rail: the built message plus what the rail's rules look at. */
export interface RailSubmission {
  paymentId: string;
  rail: RailName;
  amount: string;
  currency: string;
  creditor: CreditorAccount;
  memo: string | null;
  /** pacs.008 XML, or the NACHA entry detail record for ACH. */
  message: string;
  messageId: string | null;
  endToEndId: string | null;
  traceNumber: string | null;
  settleAtMs: number;
  /** ACH: the entry went to the operator in a transmitted file (an untransmitted entry never settles). */
  achFileTransmitted: boolean;
  /** The workflow's clock (deterministic; in tests the skipped time). */
  nowMs: number;
}

export interface RailSubmitResult {
  accepted: boolean;
  networkReference: string;
  /** pacs.002 from ISO rails; null for ACH (no synchronous status message). */
  statusReport: string | null;
  /** ISO or NACHA reason code when rejected. */
  reasonCode: string | null;
  reason: string | null;
  /** Instant rails answer ACSC at once. */
  settled: boolean;
}

export interface RailSettlementStatus {
  status: 'settled' | 'pending' | 'rejected';
  statusReport: string | null;
  reasonCode: string | null;
}

export interface RailAdapter {
  readonly name: string;
  submit(s: RailSubmission): Promise<RailSubmitResult>;
  settlementStatus(s: RailSubmission): Promise<RailSettlementStatus>;
  /** ACH: a NACHA return file that contains this entry's return, or null when none has come. */
  returns(s: RailSubmission): Promise<string | null>;
  /** ACH operator: takes an outgoing NACHA file; returns the operator's acknowledgement id. */
  transmitFile(content: string): Promise<string>;
}

/** No integration for the environment: a business failure (the workflow compensates at once, no retries). */
export class RailAdapterNotConfigured extends Error {
  readonly code = 'RAIL_NOT_CONFIGURED';
}

/** The production rail gateway refused the request (4xx): retrying would not help. */
export class RailGatewayRefused extends Error {
  readonly code = 'RAIL_GATEWAY_REFUSED';
}
