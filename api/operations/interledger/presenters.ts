/** Wire shapes of the Interledger area. */
import { openPaymentsAmount, type IlpQuote } from '../../../domain/interledger';
import type { IlpPaymentView } from '../../../domain/interledger/payments';

export function presentQuote(q: IlpQuote) {
  return {
    id: q.id,
    receiver: q.receiver,
    wallet_address: q.walletAddress,
    send_amount: q.sendAmount,
    send_currency: q.sendCurrency,
    fee: q.feeAmount,
    receive_amount: q.receiveAmount,
    receive_currency: q.receiveCurrency,
    fx_rate: q.rate,
    expires_at: q.expiresAt.toISOString(),
    // The API's clock; payment creation checks expiry against the database's.
    expired: q.expiresAt.getTime() <= Date.now(),
    used: q.usedAt !== null,
    open_payments: {
      debitAmount: openPaymentsAmount(q.sendAmount, q.sendCurrency, q.sendScale),
      receiveAmount: openPaymentsAmount(q.receiveAmount, q.receiveCurrency, q.receiveScale),
      fee: openPaymentsAmount(q.feeAmount, q.sendCurrency, q.sendScale),
    },
    created_at: q.createdAt.toISOString(),
  };
}

export function presentPayment({ payment: p, quote: q }: IlpPaymentView) {
  return {
    id: p.id,
    quote_id: p.quoteId,
    account_id: p.accountId,
    status: p.status,
    workflow_id: p.workflowId,
    destination: p.destination,
    execution_condition: p.executionCondition,
    fulfillment: p.fulfillment,
    ilp_reject_code: p.ilpRejectCode,
    packets: p.packets,
    failure: p.failureCode ? { code: p.failureCode, reason: p.failureReason ?? '' } : null,
    compensation_executed: p.compensationExecuted,
    quote: presentQuote(q),
    created_at: p.createdAt.toISOString(),
    completed_at: p.completedAt?.toISOString() ?? null,
    failed_at: p.failedAt?.toISOString() ?? null,
  };
}
