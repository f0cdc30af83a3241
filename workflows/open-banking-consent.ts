import { condition, defineQuery, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { OpenBankingConsentActivities } from '../activities/open-banking/consents';
import type { ConsentWorkflowInput } from '../domain/open-banking/consent-lifecycle';
import { SA } from '../domain/temporal/search-attributes';

/** The consent's new status, sent by whoever changed it in the database (SCA, the TPP, the customer). */
export const consentChangedSignal = defineSignal<[string]>('consentChanged');
export const consentStatusQuery = defineQuery<string>('status');

const acts = proxyActivities<OpenBankingConsentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * A consent's timers: wait for the customer's authorisation, rejecting the consent when none comes
 * in time; then wait for the end of its last valid day and expire it. Ends early when the consent
 * ends otherwise (revoked, terminated). The database holds the status; this only keeps the clock.
 */
export async function openBankingConsentWorkflow(input: ConsentWorkflowInput): Promise<string> {
  let status = 'received';
  let woken = false;
  setHandler(consentChangedSignal, (s) => {
    status = s;
    woken = true;
  });
  setHandler(consentStatusQuery, () => status);
  const set = (s: string) => {
    status = s;
    upsertSearchAttributes([{ key: SA.businessStatus, value: s }] as never);
  };
  if (!(await condition(() => status !== 'received', input.scaTimeoutMs))) {
    // A signal may have been lost: the database decides.
    const now = await acts.consentTimerState({ consentId: input.consentId });
    if (now.status === 'received') {
      await acts.rejectUnauthorisedConsent({ consentId: input.consentId });
      set('rejected');
      return status;
    }
    status = now.status;
  }
  set(status);
  // While valid: sleep until the end of its last day, or until a signal says something changed,
  // then read the consent again (the database holds the truth, including its last day).
  while (status === 'valid') {
    const { status: current, endsAtMs } = await acts.consentTimerState({ consentId: input.consentId });
    if (current !== 'valid') {
      status = current;
      break;
    }
    const left = endsAtMs - Date.now();
    if (left <= 0) {
      await acts.expireConsent({ consentId: input.consentId });
      status = 'expired';
      break;
    }
    woken = false;
    await condition(() => woken, left);
  }
  set(status);
  return status;
}
