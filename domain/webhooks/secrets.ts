/**
 * Webhook signing secrets at rest (docs/webhooks.md "Secrets at rest"): sealed with the platform's
 * secret box (AES-256-GCM under a master key, domain/platform/secret-box.ts), bound to the webhook
 * id, so a sealed value copied onto another webhook does not open. Only the signing step opens
 * them; the API shows a secret in the answers of create and rotate only, and nothing logs one.
 */
import { withTransaction, type Queryable } from '../db/pool';
import { secretBox, SecretBoxError } from '../platform/secret-box';

export const sealWebhookSecret = (webhookId: string, secret: string): string => secretBox().seal(secret, webhookId);

/** A webhook whose signing secret cannot be opened: nothing is sent (a wrong signature would look like the receiver's fault). */
export class WebhookSecretUnavailableError extends Error {
  constructor(webhookId: string, cause: SecretBoxError) {
    super(`webhook ${webhookId}: its signing secret cannot be opened: ${cause.message}`);
    this.name = 'WebhookSecretUnavailableError';
  }
}

export interface SecretColumns {
  /** The webhook id (the sealed values' context). */
  id: string;
  secret_sealed: string;
  /** The replaced secret, only while its grace period lasts (the caller filters on previous_secret_expires_at). */
  previous_secret_sealed: string | null;
}

/** The secrets a delivery signs with: the current one first, then the replaced one during its grace period. */
export function openSigningSecrets(row: SecretColumns): string[] {
  try {
    const open = (sealed: string) => secretBox().open(sealed, row.id);
    const current = open(row.secret_sealed);
    return row.previous_secret_sealed !== null ? [current, open(row.previous_secret_sealed)] : [current];
  } catch (err) {
    if (err instanceof SecretBoxError) throw new WebhookSecretUnavailableError(row.id, err);
    throw err;
  }
}

/**
 * Migration step `seal-webhook-secrets` (domain/db/migration-steps.ts), run inside the migration
 * that drops the readable `webhooks.secret` column, on its client: seals every secret still
 * readable (rows written before sealing whose instance never started on the sealing code), so the
 * column goes without losing one. A readable secret is the newest (only code from before sealing
 * wrote it). Only this step may name the old column: it runs before that migration, never after.
 */
export async function sealReadableWebhookSecrets(c: Queryable): Promise<number> {
  const { rows } = await c.query<{ id: string; secret: string }>('SELECT id, secret FROM webhooks WHERE secret IS NOT NULL ORDER BY id FOR UPDATE');
  for (const r of rows) {
    await c.query('UPDATE webhooks SET secret = NULL, secret_sealed = $2 WHERE id = $1', [r.id, sealWebhookSecret(r.id, r.secret)]);
  }
  return rows.length;
}

export interface ResealingReport {
  /** Sealed values re-sealed under the current master key (after a master key was added first). */
  resealed: number;
  /** Webhooks with a value that does not open (tampered, or its master key not configured): left as they are. */
  unreadable: string[];
}

/**
 * Start-up step (API and worker; idempotent, safe when several processes run it at once):
 * re-seals values sealed under another master key than the current one, so an old key can be
 * dropped after every process started once with the new key first (a replaced secret whose grace
 * is over is dropped rather than re-sealed). Rows are locked in id order, batch by batch.
 */
export async function resealWebhookSecrets(batchSize = 200): Promise<ResealingReport> {
  const box = secretBox();
  const report: ResealingReport = { resealed: 0, unreadable: [] };
  let after = '';
  for (;;) {
    const n = await withTransaction(async (c) => {
      const { rows } = await c.query<SecretColumns & { previous_secret_expires_at: Date | null }>(
        `SELECT id, secret_sealed, previous_secret_sealed, previous_secret_expires_at FROM webhooks
         WHERE id > $1 AND (split_part(secret_sealed, '.', 2) <> $2 OR split_part(previous_secret_sealed, '.', 2) <> $2)
         ORDER BY id LIMIT $3 FOR UPDATE`,
        [after, box.currentKeyId, batchSize],
      );
      for (const r of rows) {
        after = r.id;
        // Locked now: another process may have re-sealed it while we waited.
        if (box.keyIdOf(r.secret_sealed) === box.currentKeyId && (r.previous_secret_sealed === null || box.keyIdOf(r.previous_secret_sealed) === box.currentKeyId)) continue;
        try {
          const reseal = (sealed: string) => (box.keyIdOf(sealed) === box.currentKeyId ? sealed : box.seal(box.open(sealed, r.id), r.id));
          const current = reseal(r.secret_sealed);
          // An expired previous secret is dropped rather than re-sealed.
          const expired = r.previous_secret_expires_at !== null && r.previous_secret_expires_at.getTime() <= Date.now();
          const previous = expired || r.previous_secret_sealed === null ? null : reseal(r.previous_secret_sealed);
          await c.query(
            `UPDATE webhooks SET secret_sealed = $2, previous_secret_sealed = $3,
               previous_secret_expires_at = CASE WHEN $3::text IS NULL THEN NULL ELSE previous_secret_expires_at END
             WHERE id = $1`,
            [r.id, current, previous],
          );
          report.resealed++;
        } catch (err) {
          if (!(err instanceof SecretBoxError)) throw err;
          report.unreadable.push(r.id);
        }
      }
      return rows.length;
    });
    if (n < batchSize) return report;
  }
}
