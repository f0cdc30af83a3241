/**
 * A partner's webhook secret (spec, Authentication rule 6: onboarding returns api_key, sandbox_key
 * and webhook_secret once). It is issued at onboarding whether or not a webhook_url is given, kept
 * sealed (bound to the partner id), and signs every webhook the partner's user registers without a
 * secret of its own, at onboarding or later: what the partner was given is what verifies their
 * deliveries. Rotating a webhook's secret (POST /webhooks/{id}/rotate-secret) replaces it for that
 * webhook only.
 */
import type { Queryable } from '../db/pool';
import { secretBox } from '../platform/secret-box';

const context = (partnerId: string) => `partner-webhook:${partnerId}`;

export const sealPartnerWebhookSecret = (partnerId: string, secret: string): string => secretBox().seal(secret, context(partnerId));

/** The secret a webhook of `userId` is signed with when it names none: its partner's, if the user is a partner's. */
export async function partnerWebhookSecret(c: Queryable, userId: string): Promise<string | null> {
  const { rows } = await c.query<{ id: string; sealed: string | null }>('SELECT id, webhook_secret_sealed AS sealed FROM partners WHERE user_id = $1', [userId]);
  const r = rows[0];
  return r?.sealed ? secretBox().open(r.sealed, context(r.id)) : null;
}
