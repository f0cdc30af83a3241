/**
 * Push notifications to registered devices, behind an adapter chosen by environment. The sandbox
 * sender behaves like FCM/APNs as far as the platform can tell: it accepts a token and answers a
 * message id, and refuses a token the service no longer knows (sandbox: a token containing
 * "unregistered", as FCM's UNREGISTERED / APNs' BadDeviceToken), after which the device is revoked.
 * Production needs a push provider's credentials, which the platform does not have yet: every
 * production push is recorded failed with PUSH_NOT_CONFIGURED (docs/mobile.md).
 */
import { createHash } from 'node:crypto';
import { getPool } from '../db/pool';
import type { Environment } from '../platform/environment';
import { newId } from '../platform/ids';

export interface PushMessage {
  platform: 'ios' | 'android' | 'web';
  token: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

export class PushRejected extends Error {
  constructor(
    readonly code: 'UNREGISTERED' | 'PUSH_NOT_CONFIGURED',
    message: string,
  ) {
    super(message);
  }
}

export interface PushSender {
  readonly name: string;
  send(m: PushMessage): Promise<{ messageId: string }>;
}

class SandboxPushSender implements PushSender {
  readonly name = 'sandbox-push';
  async send(m: PushMessage): Promise<{ messageId: string }> {
    if (m.token.includes('unregistered')) throw new PushRejected('UNREGISTERED', 'the push service does not know this token');
    return { messageId: `sbx-${createHash('sha256').update(`${m.platform}:${m.token}:${m.title}:${m.body}`).digest('hex').slice(0, 24)}` };
  }
}

class UnconfiguredPushSender implements PushSender {
  readonly name = 'production-push';
  async send(): Promise<{ messageId: string }> {
    throw new PushRejected('PUSH_NOT_CONFIGURED', 'no push provider is configured for production');
  }
}

export function pushSenderFor(environment: Environment): PushSender {
  return environment === 'production' ? new UnconfiguredPushSender() : new SandboxPushSender();
}

/**
 * Pushes each notification to its user's active devices of its environment, once per device (a
 * delivery already recorded is not sent again). An unregistered token revokes its device.
 */
export async function sendPushes(notificationIds: string[]): Promise<number> {
  if (notificationIds.length === 0) return 0;
  const pool = getPool();
  const { rows } = await pool.query<{ notification_id: string; device_id: string; environment: Environment; platform: PushMessage['platform']; push_token: string; title: string; body: string; data: Record<string, unknown> }>(
    `SELECT n.id AS notification_id, d.id AS device_id, n.environment, d.platform, d.push_token, n.title, n.body, n.data
       FROM notifications n JOIN mobile_devices d ON d.user_id = n.user_id AND d.environment = n.environment AND d.revoked_at IS NULL
      WHERE n.id = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM push_deliveries x WHERE x.notification_id = n.id AND x.device_id = d.id)`,
    [notificationIds],
  );
  let sent = 0;
  for (const r of rows) {
    const sender = pushSenderFor(r.environment);
    let status: 'sent' | 'failed' = 'sent';
    let messageId: string | null = null;
    let error: string | null = null;
    try {
      messageId = (await sender.send({ platform: r.platform, token: r.push_token, title: r.title, body: r.body, data: r.data })).messageId;
      sent++;
    } catch (err) {
      if (!(err instanceof PushRejected)) throw err;
      status = 'failed';
      error = err.code;
      if (err.code === 'UNREGISTERED') await pool.query('UPDATE mobile_devices SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [r.device_id]);
    }
    await pool.query(
      `INSERT INTO push_deliveries (id, notification_id, device_id, adapter, status, provider_message_id, error) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (notification_id, device_id) DO NOTHING`,
      [newId('push'), r.notification_id, r.device_id, sender.name, status, messageId, error],
    );
  }
  return sent;
}
