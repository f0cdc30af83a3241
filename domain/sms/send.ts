/**
 * Payment-gated SMS: what a message costs, which payments are offered for it, and sending a paid
 * one. A message is never sent unpaid and never paid twice: the send workflow
 * (workflows/sms-send.ts) settles the payment first, in the same transaction that marks the
 * message paid, then hands it to the provider, follows its delivery receipts, and refunds through
 * the ledger when the provider refuses or fails it.
 */
import { getPool } from '../db/pool';
import { getPayment, authorizationKey, type X402Payment } from '../x402/payments';
import { verifyAuthorization, type PaymentTerms, type SignedAuthorization } from '../x402/authorization';
import { networksFor, PAYMENT_NETWORKS, environmentOfNetwork } from '../x402/networks';
import { termsFor } from '../x402/requirements';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { insertSmsMessage, updateSmsMessage, waitForSubmission, type SmsMessage } from './messages';
import { priceMessage } from './rates';
import { parseSender } from './sender';

export interface SmsRequest {
  to: string;
  from: string;
  message: string;
}

export interface SmsQuote {
  destination: string;
  countryCode: string;
  parts: number;
  encoding: 'GSM-7' | 'UCS-2';
  /** Per part, USDC atomic units. */
  rateUsdc: string;
  /** parts × rate, USDC atomic units. */
  priceUsdc: string;
}

/** Checks the request (destination, sender, length) and prices it; 422s name the field. */
export async function quoteSms(req: SmsRequest): Promise<SmsQuote> {
  for (const k of ['to', 'from', 'message'] as const) {
    if (typeof req?.[k] !== 'string') throw new DomainError('VALIDATION_ERROR', `${k} is required`, `/${k}`);
  }
  if (req.message.length === 0) throw new DomainError('VALIDATION_ERROR', 'message must not be empty', '/message');
  parseSender(req.from);
  const q = await priceMessage({ to: req.to, message: req.message });
  return { destination: q.destination, countryCode: q.country_code, parts: q.parts, encoding: q.encoding, rateUsdc: q.rate_usdc, priceUsdc: q.price_usdc };
}

/** The payments offered in an environment: the price on each network open to it. */
export function smsOffers(environment: Environment, quote: SmsQuote): PaymentTerms[] {
  return networksFor(environment).map((n) => termsFor(environment, n, quote.priceUsdc));
}

/**
 * The payments offered to an anonymous sender: main networks pay in production (when a payee is
 * configured), test networks in the sandbox.
 */
export function publicSmsOffers(quote: SmsQuote): PaymentTerms[] {
  const out: PaymentTerms[] = [];
  for (const n of PAYMENT_NETWORKS) {
    try {
      out.push(termsFor(environmentOfNetwork(n.network), n, quote.priceUsdc));
    } catch {
      // production without X402_PAY_TO_ADDRESS offers nothing on main networks
    }
  }
  return out;
}

export interface SmsMessageView {
  message_id: string;
  status: SmsMessage['status'];
  parts: number;
  encoding: SmsMessage['encoding'];
  destination: string;
  country_code: string;
  price_usdc: string;
  payment_status: SmsMessage['paymentStatus'];
  payment_id: string | null;
  transaction_hash: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  created_at: string;
}

export async function presentSms(m: SmsMessage, payment?: X402Payment | null): Promise<SmsMessageView> {
  const p = payment === undefined && m.paymentId ? await getPayment(m.paymentId) : (payment ?? null);
  return {
    message_id: m.id,
    status: m.status,
    parts: m.parts,
    encoding: m.encoding,
    destination: m.destination,
    country_code: m.countryCode,
    price_usdc: m.priceUsdc,
    payment_status: m.paymentStatus,
    payment_id: m.paymentId,
    transaction_hash: p?.transactionHash ?? null,
    sent_at: m.sentAt?.toISOString() ?? null,
    delivered_at: m.deliveredAt?.toISOString() ?? null,
    failed_at: m.failedAt?.toISOString() ?? null,
    failure_code: m.failureCode,
    failure_reason: m.failureReason,
    created_at: m.createdAt.toISOString(),
  };
}

export const smsWorkflowId = (messageId: string) => `sms-send-${messageId}`;

export interface SmsSendInput {
  messageId: string;
  environment: Environment;
  signed: SignedAuthorization;
  network: string;
  amount: string;
  payTo: string;
}

/**
 * Sends a paid message: the authorization is checked here (a bad one is refused at once with 402),
 * the message recorded, and the send workflow started; answers once the workflow has settled and
 * submitted it (status sent), or failed. A payment the settlement refuses (replayed nonce, funds,
 * spending limits) is thrown as its PAYMENT_* / SPENDING_LIMIT_EXCEEDED refusal: nothing was paid.
 * `quote` is the caller's quoteSms of this same request (it priced the offers the payment answers).
 */
export async function sendPaidSms(
  req: SmsRequest,
  quote: SmsQuote,
  payment: { signed: SignedAuthorization; terms: PaymentTerms },
  ctx: { environment: Environment; agentKeyId: string | null; ownerUserId: string | null },
): Promise<{ message: SmsMessageView; payment: X402Payment | null }> {
  const sender = parseSender(req.from);
  const payer = await verifyAuthorization(payment.signed, payment.terms);
  const { rows } = await getPool().query<{ user_id: string }>('SELECT user_id FROM x402_wallets WHERE environment = $1 AND address = $2', [ctx.environment, payer.toLowerCase()]);
  const id = newId('sms');
  const workflowId = smsWorkflowId(id);
  const m = await insertSmsMessage({
    id,
    environment: ctx.environment,
    ownerUserId: ctx.ownerUserId ?? rows[0]?.user_id ?? null,
    payer: payer.toLowerCase(),
    paymentKey: authorizationKey(payment.terms.network.network, payment.terms.asset.address, payer, payment.signed.authorization.nonce),
    agentKeyId: ctx.agentKeyId,
    destination: quote.destination,
    countryCode: quote.countryCode,
    sender: sender.value,
    body: req.message,
    parts: quote.parts,
    encoding: quote.encoding,
    priceUsdc: payment.terms.amount,
    workflowId,
  });
  const input: SmsSendInput = { messageId: id, environment: ctx.environment, signed: payment.signed, network: payment.terms.network.network, amount: payment.terms.amount, payTo: payment.terms.payTo };
  try {
    const client = await getTemporalClient();
    await client.workflow.start('smsSendWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: [
        { key: SA.paymentId, value: id },
        { key: SA.businessStatus, value: 'pending' },
        { key: SA.environment, value: ctx.environment },
        { key: SA.amount, value: m.priceUsdc },
        { key: SA.assetCode, value: 'USDC' },
      ],
    });
  } catch (err) {
    await updateSmsMessage(id, { status: 'failed', payment_status: 'failed', failure_code: 'WORKFLOW_UNAVAILABLE', failure_reason: 'The send workflow could not be started', failed_at: new Date() });
    throw new DomainError('WORKFLOW_UNAVAILABLE', `The message could not be sent now: ${(err as Error).message}`);
  }
  const done = await waitForSubmission(id);
  if (done.paymentStatus === 'failed') throw new DomainError(done.failureCode ?? 'PAYMENT_SETTLEMENT_FAILED', done.failureReason ?? 'The payment was refused');
  const settled = done.paymentId ? await getPayment(done.paymentId) : null;
  return { message: await presentSms(done, settled), payment: settled };
}
