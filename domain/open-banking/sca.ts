/**
 * The customer's side of SCA: what an authorisation asks (shown on the platform's page and in the
 * app) and the customer's decision. Deciding needs a login session of the customer (password or
 * passkey sign-in: an API key is a developer's credential, not the customer authenticating), in
 * the authorisation's environment; a decoupled authorisation can only be decided by the customer
 * it was pushed to.
 *
 * Approving a consent binds it to the customer and the accounts it names (they must be the
 * customer's; allPsd2 / availableAccounts cover the customer's open accounts, or those they pick),
 * makes it valid and ends the TPP's older recurring consent for the customer. Approving a payment
 * hands it to domain/open-banking/payments.ts, which runs it through the rails.
 */
import type { Principal } from '../auth/principal';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { DomainError } from '../platform/errors';
import { finishAuthorisation, lockAuthorisation, readAuthorisation, type Authorisation } from './authorisations';
import { signalConsentChanged } from './consent-lifecycle';
import { lockConsent, readConsent, setConsentStatus, type Consent, type ConsentAccess } from './consents';
import { lockPayment } from './payment-records';
import { decidePaymentSca, paymentScaDecided } from './payments';

export interface ScaDecisionResult {
  scaStatus: 'finalised' | 'failed';
  reason?: string;
  /** Where the customer's browser goes next (the TPP's redirect URI, or its NOK URI). */
  redirectUri: string | null;
}

/** What the customer is asked to approve: the TPP and the consent's access or the payment. */
export async function scaRequest(authorisationId: string) {
  const a = await readAuthorisation(authorisationId);
  if (!a) throw new DomainError('NOT_FOUND', 'No such authorisation');
  const { rows } = await getPool().query<{ name: string; authorisation_number: string }>('SELECT name, authorisation_number FROM ob_tpps WHERE id = $1', [a.tppId]);
  const consent = a.subject.kind === 'consent' ? await readConsent(a.subject.id) : null;
  return {
    authorisation: a,
    tpp: { name: rows[0]?.name ?? 'unknown', authorisationNumber: rows[0]?.authorisation_number ?? '' },
    consent: consent ? { access: consent.access, validUntil: consent.validUntil, frequencyPerDay: consent.frequencyPerDay, recurringIndicator: consent.recurring } : null,
  };
}

function checkDecider(p: Principal, a: Authorisation | null): Authorisation {
  // Another environment's or another customer's authorisation is not found, as any other resource.
  if (!a || a.environment !== p.environment || (a.userId !== null && a.userId !== p.userId)) throw new DomainError('NOT_FOUND', 'No such authorisation');
  if (p.kind !== 'session') throw new DomainError('LOGIN_SESSION_REQUIRED', 'Approving access for a third party needs you to sign in (password or passkey), not an API key');
  if (a.scaStatus === 'finalised' || a.scaStatus === 'failed' || a.scaStatus === 'exempted') {
    throw new DomainError('STATUS_INVALID', `This authorisation is already ${a.scaStatus}`);
  }
  return a;
}

/** The customer approves or denies an authorisation. */
export async function decideSca(p: Principal, authorisationId: string, decision: 'approve' | 'deny', opts: { accountIds?: string[] } = {}): Promise<ScaDecisionResult> {
  const method = p.biometric ? 'passkey' : 'password';
  const peek = checkDecider(p, await readAuthorisation(authorisationId));
  if (peek.subject.kind === 'payment') return decidePayment(p, peek, decision, method);
  const outcome = await withTransaction(async (c) => {
    const a = checkDecider(p, await lockAuthorisation(c, authorisationId));
    const consent = await lockConsent(c, a.subject.id);
    if (!consent || consent.status !== 'received') throw new DomainError('STATUS_INVALID', `The consent is ${consent?.status ?? 'gone'}; it can no longer be authorised`);
    if (decision === 'deny') return fail(c, a, consent, p.userId, method, 'the customer denied access');
    const granted = await grantedAccounts(c, consent.access, p, opts.accountIds);
    if (typeof granted === 'string') return fail(c, a, consent, p.userId, method, granted);
    await c.query(
      `INSERT INTO ob_consent_accounts (consent_id, account_id, accounts, balances, transactions)
       SELECT $1, * FROM unnest($2::text[], $3::boolean[], $4::boolean[], $5::boolean[])`,
      [consent.id, granted.map((g) => g.accountId), granted.map(() => true), granted.map((g) => g.balances), granted.map((g) => g.transactions)],
    );
    const valid = (await setConsentStatus(c, consent.id, ['received'], 'valid', { userId: p.userId }))!;
    await finishAuthorisation(c, a.id, 'finalised', { userId: p.userId, method });
    // One recurring consent per TPP and customer: the new one ends the older ones.
    const replaced: Consent[] = [];
    if (valid.recurring) {
      const { rows } = await c.query<{ id: string }>(
        `SELECT id FROM ob_consents WHERE tpp_id = $1 AND user_id = $2 AND status = 'valid' AND recurring AND id <> $3 FOR UPDATE`,
        [valid.tppId, p.userId, valid.id],
      );
      for (const r of rows) {
        const ended = await setConsentStatus(c, r.id, ['valid'], 'terminatedByTpp');
        if (ended) replaced.push(ended);
      }
    }
    return { result: { scaStatus: 'finalised' as const, redirectUri: valid.redirectUri }, signals: [[valid, 'valid'] as const, ...replaced.map((r) => [r, 'terminatedByTpp'] as const)] };
  });
  for (const [consent, status] of outcome.signals) await signalConsentChanged(consent, status);
  return outcome.result;
}

async function fail(c: Queryable, a: Authorisation, consent: Consent, userId: string, method: string, reason: string) {
  const rejected = (await setConsentStatus(c, consent.id, ['received'], 'rejected'))!;
  await finishAuthorisation(c, a.id, 'failed', { userId, method });
  return { result: { scaStatus: 'failed' as const, reason, redirectUri: consent.nokRedirectUri ?? consent.redirectUri }, signals: [[rejected, 'rejected'] as const] };
}

async function decidePayment(p: Principal, a: Authorisation, decision: 'approve' | 'deny', method: string): Promise<ScaDecisionResult> {
  // The payment's row first (as cancelling and the rail updates lock it), then the authorisation:
  // one decision at a time per payment, and the payment read under the lock it is moved under.
  const d = await withTransaction(async (c) => {
    const payment = await lockPayment(c, a.subject.id);
    checkDecider(p, await lockAuthorisation(c, a.id));
    const decided = await decidePaymentSca(c, payment, p.userId, decision);
    await finishAuthorisation(c, a.id, decided.scaStatus, { userId: p.userId, method });
    return decided;
  });
  if (d.changed) await paymentScaDecided(d.payment);
  return { scaStatus: d.scaStatus, ...(d.reason ? { reason: d.reason } : {}), redirectUri: null };
}

interface Granted {
  accountId: string;
  balances: boolean;
  transactions: boolean;
}

/**
 * The customer's accounts the consent covers, or why it cannot be granted. Named IBANs must all be
 * the customer's open accounts in this environment; a bank-wide form covers all of them, or those
 * the customer picked (accountIds) among them.
 */
async function grantedAccounts(c: Queryable, access: ConsentAccess, p: Principal, picked: string[] | undefined): Promise<Granted[] | string> {
  const { rows } = await c.query<{ id: string; iban: string }>(
    `SELECT a.id, i.iban FROM accounts a JOIN account_ibans i ON i.account_id = a.id
      WHERE a.user_id = $1 AND a.environment = $2 AND a.status <> 'closed' ORDER BY a.created_at, a.id`,
    [p.userId, p.environment],
  );
  const byIban = new Map(rows.map((r) => [r.iban, r.id]));
  const form = access.allPsd2 ? 'all' : access.availableAccountsWithBalance ? 'withBalance' : access.availableAccounts ? 'list' : null;
  if (form) {
    const mine = picked?.length ? rows.filter((r) => picked.includes(r.id)) : rows;
    if (picked?.some((id) => !rows.some((r) => r.id === id))) return 'an account you picked is not one of your open accounts';
    if (mine.length === 0) return 'you have no open account to share';
    return mine.map((r) => ({ accountId: r.id, balances: form !== 'list', transactions: form === 'all' }));
  }
  const out = new Map<string, Granted>();
  for (const kind of ['accounts', 'balances', 'transactions'] as const) {
    for (const ref of access[kind] ?? []) {
      const id = byIban.get(ref.iban);
      if (!id) return `${ref.iban} is not one of your open accounts`;
      const g = out.get(id) ?? { accountId: id, balances: false, transactions: false };
      if (kind === 'balances') g.balances = true;
      if (kind === 'transactions') g.transactions = true;
      out.set(id, g);
    }
  }
  return [...out.values()];
}
