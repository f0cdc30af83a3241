/**
 * The customer's devices with their push tokens. A token is unique per platform: registering a
 * token another user held moves it to the caller (a phone changes hands or accounts), so pushes
 * follow the person signed in. The token is never shown back whole.
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';

export interface Device {
  id: string;
  platform: 'ios' | 'android' | 'web';
  name: string | null;
  tokenSuffix: string;
  createdAt: Date;
  lastSeenAt: Date;
}

const toDevice = (r: Record<string, any>): Device => ({ id: r.id, platform: r.platform, name: r.name, tokenSuffix: String(r.push_token).slice(-6), createdAt: r.created_at, lastSeenAt: r.last_seen_at });

export async function registerDevice(p: Principal, b: { platform: Device['platform']; push_token: string; name?: string }): Promise<Device> {
  const token = b.push_token.trim();
  if (token.length < 8) throw new DomainError('INVALID_PUSH_TOKEN', 'push_token is too short to be a push token', '/push_token');
  const { rows } = await getPool().query(
    `INSERT INTO mobile_devices (id, user_id, environment, platform, name, push_token) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (platform, push_token) DO UPDATE SET user_id = excluded.user_id, environment = excluded.environment, name = COALESCE(excluded.name, mobile_devices.name),
       revoked_at = NULL, last_seen_at = now()
     RETURNING *`,
    [newId('dev'), p.userId, p.environment, b.platform, b.name ?? null, token],
  );
  return toDevice(rows[0]);
}

export async function listDevices(p: Principal): Promise<Device[]> {
  const { rows } = await getPool().query(`SELECT * FROM mobile_devices WHERE user_id = $1 AND environment = $2 AND revoked_at IS NULL ORDER BY created_at, id`, [p.userId, p.environment]);
  return rows.map(toDevice);
}

export async function removeDevice(p: Principal, id: string): Promise<void> {
  const { rowCount } = await getPool().query(`UPDATE mobile_devices SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND environment = $3 AND revoked_at IS NULL`, [id, p.userId, p.environment]);
  if (!rowCount) throw new DomainError('DEVICE_NOT_FOUND', 'Device not found');
}
