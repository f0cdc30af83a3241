/**
 * Open banking payments (PIS): the stored record, its ISO 20022 transaction status and the one
 * function that changes it (`transitionPayment`, with the allowed transitions), and the ISO reason
 * codes a rejection carries. domain/open-banking/payments.ts holds what the TPP and the customer do.
 */
import type pg from 'pg';
import { getPool, type Queryable } from '../db/pool';
import { formatAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import type { RailName } from '../rails/calendar';
import type { RailPaymentStatus } from '../rails';

export const PAYMENT_PRODUCTS = ['sepa-credit-transfers', 'instant-sepa-credit-transfers', 'cross-border-credit-transfers'] as const;
export type PaymentProduct = (typeof PAYMENT_PRODUCTS)[number];

/** ISO 20022 transaction statuses a payment takes here (Berlin Group `transactionStatus`). */
export const TRANSACTION_STATUSES = ['RCVD', 'PATC', 'ACTC', 'ACSP', 'ACSC', 'RJCT', 'CANC'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const FINAL_TRANSACTION_STATUSES: readonly TransactionStatus[] = ['ACSC', 'RJCT', 'CANC'];

/**
 * Allowed transitions. RCVD: waiting for SCA (PATC is reserved for multi-level SCA, not used). ACTC:
 * authorised, the rail payment is being started. ACSP: the rail has it (reserved, submitted). ACSC:
 * settled on the debtor's account. RJCT: SCA failed, denied or timed out, or the rail refused it.
 * CANC: the TPP cancelled it before SCA.
 */
const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  RCVD: ['PATC', 'ACTC', 'RJCT', 'CANC'],
  PATC: ['ACTC', 'RJCT', 'CANC'],
  ACTC: ['ACSP', 'ACSC', 'RJCT'],
  ACSP: ['ACSC', 'RJCT'],
  ACSC: [],
  RJCT: [],
  CANC: [],
};

export function isFinalStatus(s: TransactionStatus): boolean {
  return FINAL_TRANSACTION_STATUSES.includes(s);
}

/**
 * ISO 20022 status reason codes (ExternalStatusReason1Code) this platform gives:
 * AB05 SCA not completed in time (the brief's choice; DS24 would also fit), MS02 the customer
 * denied it, MS03 SCA failed (or another reason the bank generated), DS02 cancelled by the TPP,
 * AC02 the debtor IBAN is not one of the platform's accounts, AC06 the debtor account is frozen,
 * AC04 it is closed, AM04 insufficient funds, AM02 above a limit, RR04 held or refused by
 * sanctions screening, AB06 the rail never confirmed settlement; a rail's own ISO code (e.g. AC04
 * from a pacs.002 RJCT) is passed on as it is.
 */
export const STATUS_REASONS = {
  AB05: 'SCA was not completed in time',
  AB06: 'The rail did not confirm settlement in time',
  AC02: 'The debtor account is not an account of this bank',
  AC04: 'The account is closed',
  AC06: 'The debtor account is blocked',
  AM02: 'The amount is above the allowed maximum',
  AM04: 'Insufficient funds',
  DS02: 'Cancelled by the TPP',
  MS02: 'The customer refused the payment',
  MS03: 'The payment was refused by the bank',
  RR04: 'Refused for regulatory reasons',
} as const;

const RAIL_FAILURE_REASONS: Readonly<Record<string, string>> = {
  INSUFFICIENT_FUNDS: 'AM04',
  ACCOUNT_FROZEN: 'AC06',
  ACCOUNT_CLOSED: 'AC04',
  ACCOUNT_NOT_FOUND: 'AC02',
  AMOUNT_TOO_LARGE: 'AM02',
  RAIL_NOT_ELIGIBLE: 'AM02',
  SANCTIONS_HIT: 'RR04',
  SANCTIONS_REJECTED: 'RR04',
  SANCTIONS_REVIEW_TIMEOUT: 'RR04',
  SETTLEMENT_TIMEOUT: 'AB06',
};

/** The ISO reason of a rail payment's (or rail creation's) failure code: ISO codes pass through, platform codes are mapped, else MS03. */
export function statusReasonOf(failureCode: string | null): string {
  if (!failureCode) return 'MS03';
  if (RAIL_FAILURE_REASONS[failureCode]) return RAIL_FAILURE_REASONS[failureCode];
  return /^[A-Z]{2}[0-9A-Z]{2}$/.test(failureCode) ? failureCode : 'MS03';
}

/** Rail payment status → the payment's transaction status (null: no change yet). */
export function statusOfRail(s: RailPaymentStatus): TransactionStatus | null {
  switch (s) {
    case 'pending':
      return null;
    case 'reserved':
    case 'submitted':
      return 'ACSP';
    case 'settled':
    case 'completed':
      return 'ACSC';
    case 'rejected':
    case 'failed':
    case 'returned':
      return 'RJCT';
  }
}

export interface PaymentCreditor {
  iban: string;
  name: string;
  bic?: string;
  address?: { streetName?: string; buildingNumber?: string; townName?: string; postCode?: string; country: string };
}

export interface ObPayment {
  id: string;
  environment: Environment;
  tppId: string;
  requestId: string;
  product: PaymentProduct;
  rail: RailName;
  debtorIban: string;
  accountId: string | null;
  userId: string | null;
  creditor: PaymentCreditor;
  amount: string;
  currency: string;
  remittance: string | null;
  endToEndId: string | null;
  transactionStatus: TransactionStatus;
  statusReason: string | null;
  railPaymentId: string | null;
  workflowId: string;
  authorisedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  environment: Environment;
  tpp_id: string;
  request_id: string;
  product: PaymentProduct;
  rail: RailName;
  debtor_iban: string;
  account_id: string | null;
  user_id: string | null;
  creditor: PaymentCreditor;
  amount: string;
  currency: string;
  remittance: string | null;
  end_to_end_id: string | null;
  transaction_status: TransactionStatus;
  status_reason: string | null;
  rail_payment_id: string | null;
  workflow_id: string;
  authorised_at: Date | null;
  created_at: Date;
  updated_at: Date;
  precision: number;
}

function toPayment(r: Row): ObPayment {
  return {
    id: r.id,
    environment: r.environment,
    tppId: r.tpp_id,
    requestId: r.request_id,
    product: r.product,
    rail: r.rail,
    debtorIban: r.debtor_iban,
    accountId: r.account_id,
    userId: r.user_id,
    creditor: r.creditor,
    amount: formatAmount(r.amount, r.precision),
    currency: r.currency,
    remittance: r.remittance,
    endToEndId: r.end_to_end_id,
    transactionStatus: r.transaction_status,
    statusReason: r.status_reason,
    railPaymentId: r.rail_payment_id,
    workflowId: r.workflow_id,
    authorisedAt: r.authorised_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const obPaymentWorkflowId = (id: string) => `ob-payment-${id}`;

/** A checked instruction: canonical amount, normalised IBANs. */
export interface PaymentInstruction {
  debtorIban: string;
  creditor: PaymentCreditor;
  amount: string;
  currency: string;
  remittance: string | null;
  endToEndId: string | null;
}

/** What initiation writes: the checked instruction, with its identity and route. */
export type NewPaymentRow = Pick<ObPayment, 'id' | 'environment' | 'tppId' | 'requestId' | 'product' | 'rail'> & PaymentInstruction;

/**
 * Records a received payment, resolving the debtor IBAN to an account of the TPP's environment and
 * its owner (both null when it is none). A second call with the TPP's X-Request-ID creates nothing
 * and returns the first payment (`created` false).
 */
export async function insertPayment(p: NewPaymentRow, c: Queryable = getPool()): Promise<{ payment: ObPayment; created: boolean }> {
  const { rows } = await c.query<Row>(
    `WITH debtor AS (
       SELECT i.account_id, a.user_id FROM account_ibans i JOIN accounts a ON a.id = i.account_id
        WHERE i.iban = $7 AND a.environment = $2),
     p AS (
       INSERT INTO ob_payments (id, environment, tpp_id, request_id, product, rail, debtor_iban, account_id, user_id, creditor, amount, currency, remittance, end_to_end_id, workflow_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT account_id FROM debtor), (SELECT user_id FROM debtor), $8, $9, $10, $11, $12, $13)
       ON CONFLICT (tpp_id, request_id) DO NOTHING RETURNING *)
     SELECT p.*, a.precision FROM p JOIN assets a ON a.code = p.currency`,
    [p.id, p.environment, p.tppId, p.requestId, p.product, p.rail, p.debtorIban, JSON.stringify(p.creditor), p.amount, p.currency, p.remittance, p.endToEndId, obPaymentWorkflowId(p.id)],
  );
  if (rows[0]) return { payment: toPayment(rows[0]), created: true };
  const { rows: existing } = await c.query<Row>(`${SELECT} WHERE p.tpp_id = $1 AND p.request_id = $2`, [p.tppId, p.requestId]);
  return { payment: toPayment(existing[0]), created: false };
}

const SELECT = 'SELECT p.*, a.precision FROM ob_payments p JOIN assets a ON a.code = p.currency';

export async function readPayment(id: string, c: Queryable = getPool()): Promise<ObPayment | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE p.id = $1`, [id]);
  return rows[0] ? toPayment(rows[0]) : null;
}

export async function lockPayment(c: pg.PoolClient, id: string): Promise<ObPayment> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE p.id = $1 FOR UPDATE OF p`, [id]);
  if (!rows[0]) throw new DomainError('RESOURCE_UNKNOWN', `No payment ${id}`);
  return toPayment(rows[0]);
}

/**
 * The one place transaction_status changes: on the locked row, only along TRANSITIONS. Moving to
 * the status it already has is a no-op (retried activities, repeated signals); any other refused
 * move returns the payment unchanged with `changed` false, so callers decide whether that is an
 * error (cancelling an executed payment) or nothing to do (a rail update after a cancellation).
 */
export async function transitionPayment(
  c: pg.PoolClient,
  id: string,
  to: TransactionStatus,
  extra: { reason?: string | null; authorised?: boolean } = {},
): Promise<{ payment: ObPayment; changed: boolean }> {
  const p = await lockPayment(c, id);
  if (p.transactionStatus === to || !TRANSITIONS[p.transactionStatus].includes(to)) return { payment: p, changed: false };
  const { rows } = await c.query<Row>(
    `WITH p AS (
       UPDATE ob_payments SET transaction_status = $2, status_reason = coalesce($3, status_reason),
              authorised_at = CASE WHEN $4 THEN now() ELSE authorised_at END, updated_at = now()
        WHERE id = $1 RETURNING *)
     SELECT p.*, a.precision FROM p JOIN assets a ON a.code = p.currency`,
    [id, to, extra.reason ?? null, extra.authorised ?? false],
  );
  return { payment: toPayment(rows[0]), changed: true };
}

/** Links the rail payment that executes the payment (once). */
export async function linkRailPayment(c: Queryable, id: string, railPaymentId: string): Promise<void> {
  await c.query('UPDATE ob_payments SET rail_payment_id = $2, updated_at = now() WHERE id = $1 AND rail_payment_id IS NULL', [id, railPaymentId]);
}
