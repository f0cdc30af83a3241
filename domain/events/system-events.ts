/**
 * Data schemas of the platform's system.* events (issue 25, part B) and of account.updated, each
 * describing exactly what its producer writes:
 *  - system.maintenance_start / _end: domain/platform/maintenance-windows.ts (maintenance window workflow);
 *  - system.rate_limit_warning: domain/platform/rate-limit-warnings.ts (api/plugins/rate-limit.ts);
 *  - system.api_key_expiring: domain/auth/key-expiry.ts (daily schedule);
 *  - system.security_alert: domain/auth/security-alerts.ts (login lockout, new IP range, refresh token reuse);
 *  - system.status_change (readiness): domain/platform/readiness-watch.ts.
 */
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const ts: Schema = { type: 'string', format: 'date-time' };
const int: Schema = { type: 'integer' };
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: 'object',
  required,
  properties,
  additionalProperties: false,
});

export const MAINTENANCE_EVENT: Schema = obj({
  maintenance_id: str,
  environment: { type: 'string', enum: ['sandbox', 'production'] },
  starts_at: ts,
  ends_at: ts,
  message: str,
});

export const RATE_LIMIT_WARNING_EVENT: Schema = obj({
  credential_id: str,
  credential_type: { type: 'string', enum: ['api_key', 'session', 'oauth'] },
  window_seconds: int,
  limit: int,
  used: int,
  threshold_percent: { type: 'integer', enum: [80] },
  window_start: ts,
  window_reset_at: ts,
});

export const API_KEY_EXPIRING_EVENT: Schema = obj({
  api_key_id: str,
  name: str,
  key_prefix: str,
  expires_at: ts,
  days_remaining: { type: 'integer', minimum: 0, maximum: 7 },
});

export const SECURITY_ALERT_KINDS = ['login_lockout', 'api_key_new_ip_range', 'refresh_token_reuse'] as const;
export type SecurityAlertKind = (typeof SECURITY_ALERT_KINDS)[number];

export const SECURITY_ALERT_EVENT: Schema = obj({
  alert: { type: 'string', enum: [...SECURITY_ALERT_KINDS] },
  description: str,
  /** The API key (api_key_new_ip_range) or login session (refresh_token_reuse) concerned. */
  credential_id: strOrNull,
  /** The client address that triggered the alert, when known. */
  ip: strOrNull,
  /** api_key_new_ip_range: the /24 (IPv4) or /48 (IPv6) range not seen before for the key. */
  ip_range: strOrNull,
  /** login_lockout: seconds until the next login attempt is accepted. */
  retry_after_seconds: { type: ['integer', 'null'] },
  /** refresh_token_reuse: whether the session was revoked (always true). */
  session_revoked: { type: 'boolean' },
});

export const READINESS_COMPONENTS = ['database', 'temporal'] as const;

export const READINESS_STATUS_CHANGE: Schema = obj({
  resource: { type: 'string', enum: ['readiness'] },
  component: { type: 'string', enum: [...READINESS_COMPONENTS] },
  previous_status: { type: ['string', 'null'], enum: ['ok', 'unavailable', null] },
  status: { type: 'string', enum: ['ok', 'unavailable'] },
  observed_at: ts,
});
