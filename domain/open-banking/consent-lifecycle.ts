/**
 * A consent's life outside SCA: created by the TPP (with its timer workflow), ended by the TPP
 * (DELETE: terminatedByTpp) or by the customer (revokedByPsu), rejected when left unauthorised and
 * expired after its last day (the workflow's timers, workflows/open-banking-consent.ts).
 */
import { getPool, withTransaction } from '../db/pool';
import { getTemporalClient } from '../temporal/client';
import { SA } from '../temporal/search-attributes';
import { signalWorkflow } from '../temporal/signals';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import type { Environment } from '../platform/environment';
import { failOpenAuthorisations, scaTimeoutMs } from './authorisations';
import { insertConsent, lockConsent, readConsent, setConsentStatus, tppConsent, type Consent, type ConsentRequest, type ConsentStatus } from './consents';
import type { Tpp } from './tpps';

export interface ConsentWorkflowInput {
  consentId: string;
  /** How long the consent waits for the customer's authorisation before it is rejected (ms). */
  scaTimeoutMs: number;
}

/** Records the consent and starts its timers; a replayed X-Request-ID returns the consent it made. */
export async function createConsent(
  tpp: Tpp,
  r: ConsentRequest,
  headers: { requestId: string; psuId: string | null; redirectUri: string | null; nokRedirectUri: string | null },
): Promise<{ consent: Consent; created: boolean }> {
  const { consent, created } = await insertConsent(tpp, r, headers);
  if (created) await startConsentWorkflow(consent);
  return { consent, created };
}

async function startConsentWorkflow(consent: Consent): Promise<void> {
  try {
    const client = await getTemporalClient();
    await client.workflow.start('openBankingConsentWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId: consent.workflowId,
      args: [{ consentId: consent.id, scaTimeoutMs: scaTimeoutMs() } satisfies ConsentWorkflowInput],
      typedSearchAttributes: [
        { key: SA.operationId, value: consent.id },
        { key: SA.businessStatus, value: 'received' },
        { key: SA.environment, value: consent.environment },
      ],
    });
  } catch (err) {
    // Without its timers the consent could never be rejected or expire on time: it does not stay.
    await setConsentStatus(getPool(), consent.id, ['received'], 'rejected');
    throw new DomainError('WORKFLOW_UNAVAILABLE', `The consent could not be recorded now: ${(err as Error).message}`);
  }
}

/** Tells the consent's workflow its new status (its timers end or move on); false once it has ended. */
export function signalConsentChanged(c: Pick<Consent, 'workflowId'>, status: ConsentStatus): Promise<boolean> {
  return signalWorkflow(c.workflowId, 'consentChanged', status);
}

/** DELETE by the TPP: terminatedByTpp unless already final (final statuses never change). */
export async function terminateConsentByTpp(tpp: Tpp, consentId: string): Promise<void> {
  await tppConsent(tpp, consentId);
  const ended = await endConsent(consentId, ['received', 'valid'], 'terminatedByTpp');
  if (ended) await signalConsentChanged(ended, 'terminatedByTpp');
}

/** The customer withdraws a consent they gave: revokedByPsu. Another customer's consent is 404. */
export async function revokeConsentByPsu(userId: string, environment: Environment, consentId: string): Promise<Consent> {
  const c = await readConsent(consentId);
  if (!c || c.userId !== userId || c.environment !== environment) throw new DomainError('NOT_FOUND', 'Consent not found');
  const ended = await endConsent(consentId, ['valid'], 'revokedByPsu');
  if (ended) await signalConsentChanged(ended, 'revokedByPsu');
  return ended ?? c;
}

async function endConsent(id: string, from: ConsentStatus[], to: ConsentStatus): Promise<Consent | null> {
  return withTransaction(async (c) => {
    await lockConsent(c, id);
    const ended = await setConsentStatus(c, id, from, to);
    if (ended) await failOpenAuthorisations(c, { kind: 'consent', id });
    return ended;
  });
}

/** The consent workflow's timers: an unauthorised consent is rejected, a valid one expires. */
export async function rejectUnauthorisedConsent(consentId: string): Promise<void> {
  await endConsent(consentId, ['received'], 'rejected');
}

export async function expireConsent(consentId: string): Promise<void> {
  await endConsent(consentId, ['valid'], 'expired');
}
