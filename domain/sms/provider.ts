/**
 * Which SMS provider a message goes through. As with chains (domain/chains/adapter.ts), the API
 * key's environment decides: sandbox keys get the sandbox operator (domain/sms/provider-sandbox.ts,
 * deterministic, failure modes by destination number), production keys get Twilio
 * (domain/sms/provider-twilio.ts) when SMS_PROVIDER=twilio and its credentials are set. Production
 * never pretends: without them it gets a provider that refuses every call with
 * SMS_PROVIDER_NOT_CONFIGURED (not retryable), so nothing is charged for a message no one can send.
 *
 * Activities call the provider with the workflow's clock (`at`, `asOf`); workflows never import it.
 */
import type { Queryable } from '../db/pool';
import { loadConfig, type Config } from '../platform/config';
import type { Environment } from '../platform/environment';
import { SandboxSmsProvider } from './provider-sandbox';
import { TwilioSmsProvider } from './provider-twilio';
import { SmsProviderError, type DeliveryReport, type SmsProvider } from './provider-types';

export * from './provider-types';
export { SandboxSmsProvider, sandboxModeOf, sandboxProviderMessageId, sandboxTimeline } from './provider-sandbox';
export { TwilioSmsProvider, twilioSignature, verifyTwilioSignature } from './provider-twilio';

export type SmsProviderSettings = Pick<Config, 'smsProvider' | 'twilioAccountSid' | 'twilioAuthToken' | 'twilioBaseUrl' | 'smsStatusCallbackUrl'>;

/** Production without a configured provider: every call refused, never retried. */
export class UnconfiguredSmsProvider implements SmsProvider {
  readonly name = 'unconfigured';
  constructor(private readonly why: string) {}

  private refuse(): never {
    throw new SmsProviderError('SMS_PROVIDER_NOT_CONFIGURED', `Production SMS is not configured: ${this.why}`, { retryable: false });
  }

  async submit(): Promise<{ providerMessageId: string; status: 'accepted' }> {
    return this.refuse();
  }

  async report(): Promise<DeliveryReport> {
    return this.refuse();
  }
}

/**
 * The provider for an environment. `settings` default to the process's (SMS_PROVIDER, TWILIO_*,
 * SMS_STATUS_CALLBACK_URL); `db` is where the sandbox keeps its submissions; `fetch` replaces the
 * global one for Twilio (tests).
 */
export function smsProviderFor(
  environment: Environment,
  deps: { settings?: SmsProviderSettings; db?: Queryable; fetch?: typeof fetch } = {},
): SmsProvider {
  if (environment === 'sandbox') return new SandboxSmsProvider(deps.db);
  const s = deps.settings ?? loadConfig();
  if (s.smsProvider !== 'twilio') return new UnconfiguredSmsProvider('set SMS_PROVIDER=twilio with TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
  const missing = [!s.twilioAccountSid && 'TWILIO_ACCOUNT_SID', !s.twilioAuthToken && 'TWILIO_AUTH_TOKEN'].filter(Boolean);
  if (missing.length > 0) return new UnconfiguredSmsProvider(`SMS_PROVIDER=twilio but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`);
  return new TwilioSmsProvider({
    accountSid: s.twilioAccountSid,
    authToken: s.twilioAuthToken,
    baseUrl: s.twilioBaseUrl,
    statusCallbackUrl: s.smsStatusCallbackUrl || undefined,
    fetch: deps.fetch,
  });
}
