import type { Principal } from '../auth/principal';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { createIlpPayment, getIlpPayment, getQuote, type IlpPayment, type IlpQuote } from './index';
import { startIlpPaymentWorkflow } from './workflow';

export interface IlpPaymentView {
  payment: IlpPayment;
  quote: IlpQuote;
}

/**
 * Spends the quote on a payment (createIlpPayment checks quote and account) and starts its
 * workflow. When the workflow cannot be started the caller gets WORKFLOW_UNAVAILABLE: nothing was
 * moved.
 */
export async function startIlpPayment(input: { userId: string; environment: Environment; quoteId: string; accountId: string }): Promise<IlpPaymentView> {
  const payment = await createIlpPayment(input);
  const quote = (await getQuote(payment.quoteId))!;
  await startIlpPaymentWorkflow(payment, quote).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The payment could not be started; nothing was moved. Retry later.');
  });
  return { payment, quote };
}

/** The caller's quote in the caller's environment, else NOT_FOUND. */
export async function getOwnQuote(p: Principal, id: string): Promise<IlpQuote> {
  const q = await getQuote(id);
  if (!q || q.userId !== p.userId || q.environment !== p.environment) throw new DomainError('NOT_FOUND', 'Quote not found');
  return q;
}

/** The caller's payment in the caller's environment with its quote, else NOT_FOUND. */
export async function getOwnIlpPayment(p: Principal, id: string): Promise<IlpPaymentView> {
  const payment = await getIlpPayment(id);
  if (!payment || payment.userId !== p.userId || payment.environment !== p.environment) throw new DomainError('NOT_FOUND', 'Payment not found');
  return { payment, quote: (await getQuote(payment.quoteId))! };
}
