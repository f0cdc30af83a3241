import type { CreditorAccount, Urgency } from '../../../domain/rails/routing';
import { startRailPayment } from '../../../domain/rails/start';
import type { Environment } from '../../../domain/platform/environment';

/** Rail payments: pay out, list, read one. */
export type PaymentBody = { account_id: string; amount: string; currency: string; rail: string; creditor_account: CreditorAccount; memo?: string; urgency?: Urgency };

/**
 * A payment request as its REST body reaches the domain (also GraphQL's createRailPayment), with the
 * request's key (REST requestKeyOf, GraphQL mutationRequestKey) so a re-run after a crash answers
 * with the payment the first run made.
 */
export const startPaymentFromBody = (who: { userId: string; environment: Environment }, b: PaymentBody, requestKey: string | undefined) =>
  startRailPayment({ ...who, accountId: b.account_id, amount: b.amount, currency: b.currency.toUpperCase(), rail: b.rail, creditor: b.creditor_account, memo: b.memo, urgency: b.urgency, now: new Date(), requestKey });
