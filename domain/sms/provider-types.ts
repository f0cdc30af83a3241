/**
 * The SMS provider adapter's shapes, apart from the factory (domain/sms/provider.ts) so the
 * adapters can share them without an import cycle.
 */

/** What the platform hands a provider: one message, already priced and counted. */
export interface SmsSubmission {
  /** The platform's id of the message; the sandbox derives its provider id from it. */
  messageId: string;
  /** E.164 */
  to: string;
  from: string;
  body: string;
  parts: number;
}

export type DeliveryStatus = 'accepted' | 'sent' | 'delivered' | 'failed' | 'expired';

/** Where a message stands with the provider, as of some moment. */
export interface DeliveryReport {
  status: DeliveryStatus;
  /** The provider's error code (Twilio's numeric codes, e.g. 30003), for failed and expired. */
  errorCode?: string;
  errorReason?: string;
  /** When the message reached this status (the provider's time, or the sandbox's schedule). */
  at: Date;
}

/** delivered, failed and expired never change again; accepted and sent still may. */
export function isFinalStatus(status: DeliveryStatus): boolean {
  return status === 'delivered' || status === 'failed' || status === 'expired';
}

export interface SmsProvider {
  readonly name: string;
  /**
   * Hands the message to the provider. `at` is the caller's clock (a workflow's, under Temporal),
   * which the sandbox's timeline starts from. Throws SmsProviderError when refused.
   */
  submit(message: SmsSubmission, at: Date): Promise<{ providerMessageId: string; status: 'accepted' }>;
  /** The delivery report as of `asOf`, for a message accepted at `submittedAt` (the caller's clock). */
  report(providerMessageId: string, submittedAt: Date, asOf: Date): Promise<DeliveryReport>;
}

/**
 * A provider's refusal or failure. `retryable`: trying the same call again may succeed (an outage,
 * a rate limit); not: it never will (bad number, bad credentials, no provider configured).
 * `ambiguous`: the request may have reached the provider before the failure (a time-out, a dropped
 * connection), so a retry can send the message twice (Twilio has no idempotency key).
 */
export class SmsProviderError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly ambiguous: boolean;
  readonly httpStatus?: number;

  constructor(code: string, message: string, opts: { retryable: boolean; ambiguous?: boolean; httpStatus?: number }) {
    super(message);
    this.name = 'SmsProviderError';
    this.code = code;
    this.retryable = opts.retryable;
    this.ambiguous = opts.ambiguous ?? false;
    this.httpStatus = opts.httpStatus;
  }
}
