/**
 * The consent workflow's activities (workflows/open-banking-consent.ts): each reads the consent's state and
 * changes it only from the status it expects, so a retry or a late timer changes nothing twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { expireConsent, rejectUnauthorisedConsent } from '../../domain/open-banking/consent-lifecycle';
import { consentEndsAt, readConsent } from '../../domain/open-banking/consents';

export function createOpenBankingConsentActivities() {
  return {
    /** The consent's status and the instant (ms) its validity ends. */
    async consentTimerState({ consentId }: { consentId: string }): Promise<{ status: string; endsAtMs: number }> {
      const c = await readConsent(consentId);
      if (!c) throw ApplicationFailure.nonRetryable(`consent ${consentId} not found`, 'CONSENT_NOT_FOUND');
      return { status: c.status, endsAtMs: consentEndsAt(c).getTime() };
    },
    async rejectUnauthorisedConsent({ consentId }: { consentId: string }): Promise<void> {
      await rejectUnauthorisedConsent(consentId);
    },
    async expireConsent({ consentId }: { consentId: string }): Promise<void> {
      await expireConsent(consentId);
    },
  };
}

export type OpenBankingConsentActivities = ReturnType<typeof createOpenBankingConsentActivities>;
