/** The stored shape of an HTTP-native payment (x402_payments), shared by the payment core and its history. */
import type { Environment } from '../platform/environment';

export type PaymentPurpose = 'sms' | 'endpoint' | 'mcp' | 'facilitator';
export type PaymentStatus = 'settling' | 'settled' | 'failed' | 'refunded';

export interface X402Payment {
  id: string;
  environment: Environment;
  network: string;
  asset: string;
  payer: string;
  payTo: string;
  /** Atomic units. */
  amount: string;
  nonce: string;
  purpose: PaymentPurpose;
  resource: string;
  endpointId: string | null;
  agentKeyId: string | null;
  payerUserId: string | null;
  payerAccountId: string | null;
  status: PaymentStatus;
  entryId: string | null;
  refundEntryId: string | null;
  transactionHash: string | null;
  failureCode: string | null;
  failureReason: string | null;
  createdAt: Date;
  settledAt: Date | null;
  refundedAt: Date | null;
}

const COLUMNS = `id, environment, network, asset, payer, pay_to AS "payTo", amount::text AS amount, nonce, purpose, resource,
  endpoint_id AS "endpointId", agent_key_id AS "agentKeyId", payer_user_id AS "payerUserId", payer_account_id AS "payerAccountId",
  status, entry_id AS "entryId", refund_entry_id AS "refundEntryId", transaction_hash AS "transactionHash",
  failure_code AS "failureCode", failure_reason AS "failureReason", created_at AS "createdAt", settled_at AS "settledAt", refunded_at AS "refundedAt"`;

export { COLUMNS as PAYMENT_COLUMNS };
