/**
 * Twilio's Programmable Messaging REST API (2010-04-01) as an SmsProvider, over global fetch.
 *
 * submit: POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded To, From, Body
 * (+ StatusCallback), HTTP Basic with the account SID and auth token. report: GET
 * …/Messages/{Sid}.json. Every call has a time-out (AbortSignal.timeout).
 *
 * Twilio has no idempotency key for creating a message and cannot be asked "did you get message X":
 * a request that times out or loses its connection after Twilio read it may have created the
 * message, and retrying it may send the SMS twice (at-least-once). Such failures are marked
 * `ambiguous` (and retryable, a 5xx likewise) so the caller decides; a 4xx is final and never retried
 * (the caller's retry policy keeps one attempt for it). The platform's message id rides on the
 * StatusCallback URL, so a receipt can be matched to the message even when the submit's answer was lost.
 *
 * verifyTwilioSignature checks the X-Twilio-Signature of a status callback (the route is mounted
 * elsewhere): base64 HMAC-SHA1, keyed by the auth token, of the full URL followed by every POST
 * parameter name and value, sorted by name.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SmsProviderError, type DeliveryReport, type DeliveryStatus, type SmsProvider, type SmsSubmission } from './provider-types';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** https://api.twilio.com, or a fake in tests. */
  baseUrl: string;
  /** Where Twilio posts status changes; the platform's message id is added as ?message_id=. */
  statusCallbackUrl?: string;
  timeoutMs?: number;
  /**
   * How long after submission a message without a final status counts as expired: 72 h, the
   * longest validity operators commonly give an SMS (Twilio itself drops queued messages after 10 h
   * with error 30036).
   */
  finalStatusDeadlineMs?: number;
  fetch?: typeof fetch;
}

const API_VERSION = '2010-04-01';

/** Twilio's message statuses, by what they mean for delivery. */
const STATUS_MAP: Readonly<Record<string, DeliveryStatus>> = {
  queued: 'accepted',
  accepted: 'accepted',
  scheduled: 'accepted',
  sending: 'sent',
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

interface TwilioMessage {
  sid?: string;
  status?: string;
  error_code?: number | string | null;
  error_message?: string | null;
  date_updated?: string | null;
}

export class TwilioSmsProvider implements SmsProvider {
  readonly name = 'twilio';
  private readonly s: Required<Omit<TwilioSettings, 'statusCallbackUrl'>> & { statusCallbackUrl: string };

  constructor(settings: TwilioSettings) {
    this.s = {
      accountSid: settings.accountSid,
      authToken: settings.authToken,
      baseUrl: settings.baseUrl.replace(/\/+$/, ''),
      statusCallbackUrl: settings.statusCallbackUrl ?? '',
      timeoutMs: settings.timeoutMs ?? 10_000,
      finalStatusDeadlineMs: settings.finalStatusDeadlineMs ?? 72 * 3_600_000,
      fetch: settings.fetch ?? globalThis.fetch,
    };
  }

  private messagesUrl(suffix = ''): string {
    return `${this.s.baseUrl}/${API_VERSION}/Accounts/${encodeURIComponent(this.s.accountSid)}/Messages${suffix}.json`;
  }

  /** `_at` is the caller's clock; Twilio sends now, whatever it says. */
  async submit(m: SmsSubmission, _at?: Date): Promise<{ providerMessageId: string; status: 'accepted' }> {
    const form = new URLSearchParams({ To: m.to, From: m.from, Body: m.body });
    if (this.s.statusCallbackUrl) {
      let cb: URL;
      try {
        cb = new URL(this.s.statusCallbackUrl);
      } catch {
        throw new SmsProviderError('SMS_PROVIDER_NOT_CONFIGURED', `SMS_STATUS_CALLBACK_URL is not a URL: "${this.s.statusCallbackUrl.slice(0, 60)}"`, { retryable: false });
      }
      cb.searchParams.set('message_id', m.messageId);
      form.set('StatusCallback', cb.toString());
    }
    const msg = await this.call('POST', this.messagesUrl(), form);
    if (typeof msg.sid !== 'string' || !/^(SM|MM)[0-9a-f]{32}$/i.test(msg.sid)) {
      throw new SmsProviderError('TWILIO_BAD_RESPONSE', 'Twilio accepted the request but returned no message SID', { retryable: true, ambiguous: true });
    }
    return { providerMessageId: msg.sid, status: 'accepted' };
  }

  async report(providerMessageId: string, submittedAt: Date, asOf: Date): Promise<DeliveryReport> {
    if (!/^(SM|MM)[0-9a-f]{32}$/i.test(providerMessageId)) {
      throw new SmsProviderError('TWILIO_BAD_SID', `"${providerMessageId.slice(0, 40)}" is not a Twilio message SID`, { retryable: false });
    }
    const msg = await this.call('GET', this.messagesUrl(`/${providerMessageId}`));
    return twilioDeliveryReport(msg, submittedAt, asOf, this.s.finalStatusDeadlineMs);
  }

  /** One request; every failure becomes an SmsProviderError saying whether a retry may help. */
  private async call(method: 'GET' | 'POST', url: string, form?: URLSearchParams): Promise<TwilioMessage> {
    const auth = Buffer.from(`${this.s.accountSid}:${this.s.authToken}`).toString('base64');
    let res: Response;
    try {
      res = await this.s.fetch(url, {
        method,
        headers: {
          authorization: `Basic ${auth}`,
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form?.toString(),
        signal: AbortSignal.timeout(this.s.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      throw new SmsProviderError(timedOut ? 'TWILIO_TIMEOUT' : 'TWILIO_UNREACHABLE', `Twilio ${method} failed: ${(err as Error).message}`, {
        retryable: true,
        ambiguous: method === 'POST',
      });
    }
    const text = await res.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // Not JSON (a proxy's error page): the status decides below.
    }
    if (res.ok) return body as TwilioMessage;
    // Twilio's error body: { code, message, more_info, status }.
    const code = body.code !== undefined && body.code !== null ? String(body.code) : `HTTP_${res.status}`;
    const message = typeof body.message === 'string' ? body.message : `Twilio answered HTTP ${res.status}`;
    const transient = res.status === 429 || res.status >= 500;
    // A 5xx other than 503 may come after the message was created; 429 and 503 are refusals up front.
    const ambiguous = method === 'POST' && res.status >= 500 && res.status !== 503;
    throw new SmsProviderError(code, message, { retryable: transient, ambiguous, httpStatus: res.status });
  }
}

/** A Twilio message resource as a DeliveryReport at `asOf`. */
export function twilioDeliveryReport(msg: TwilioMessage, submittedAt: Date, asOf: Date, deadlineMs: number): DeliveryReport {
  const raw = (msg.status ?? '').toLowerCase();
  // An unknown status (Twilio adds some now and then) is taken as still under way, never as final.
  const mapped: DeliveryStatus = STATUS_MAP[raw] ?? 'sent';
  const updated = msg.date_updated ? new Date(msg.date_updated) : null;
  const at = updated && !Number.isNaN(updated.getTime()) ? updated : asOf;
  const errorCode = msg.error_code !== undefined && msg.error_code !== null && msg.error_code !== '' ? String(msg.error_code) : undefined;
  const errorReason = msg.error_message ?? (raw === 'canceled' ? 'canceled before it was sent' : undefined);
  if (mapped === 'failed') {
    // 30036: Twilio's validity period elapsed before the message left its queue.
    return { status: errorCode === '30036' ? 'expired' : 'failed', errorCode, errorReason: errorReason ?? undefined, at };
  }
  if (mapped !== 'delivered' && asOf.getTime() - submittedAt.getTime() >= deadlineMs) {
    return { status: 'expired', errorReason: `no final status from Twilio within ${Math.round(deadlineMs / 3_600_000)} h (last: ${raw || 'none'})`, at: new Date(submittedAt.getTime() + deadlineMs) };
  }
  return { status: mapped, ...(errorCode ? { errorCode } : {}), ...(errorReason ? { errorReason } : {}), at };
}

/** The signature Twilio puts in X-Twilio-Signature for a request to `url` with form `params`. */
export function twilioSignature(authToken: string, url: string, params: Readonly<Record<string, string | readonly string[]>>): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    // A repeated parameter contributes name+value once per value, values sorted (twilio-node does the same).
    for (const v of typeof value === 'string' ? [value] : [...value].sort()) data += name + v;
  }
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

/**
 * Whether `signature` (the X-Twilio-Signature header) is Twilio's for this request. `url` is the
 * full URL Twilio called, query included, as configured in StatusCallback; Twilio may have signed
 * it with or without the scheme's default port, so both forms are tried. Constant-time comparison.
 */
export function verifyTwilioSignature(
  authToken: string,
  signature: string | undefined,
  url: string,
  params: Readonly<Record<string, string | readonly string[]>>,
): boolean {
  if (!signature || !authToken) return false;
  const given = Buffer.from(signature, 'utf8');
  return urlVariants(url).some((u) => {
    const expected = Buffer.from(twilioSignature(authToken, u, params), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const defaultPort = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '';
  if (!defaultPort) return [url];
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!m) return [url];
  const [, scheme, authority, rest] = m;
  const withoutPort = authority.replace(new RegExp(`:${defaultPort}$`), '');
  const variants = new Set([url, `${scheme}${withoutPort}${rest}`]);
  if (parsed.port === '') variants.add(`${scheme}${authority}:${defaultPort}${rest}`);
  return [...variants];
}
