/** Webhook settings (read on every use, so tests and the start script can set them first). */
function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n) || n < 0) throw new Error(`Setting ${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

function bool(name: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes((process.env[name] ?? '').toLowerCase());
}

export function webhookConfig() {
  return {
    /** Development and tests only: lets endpoints resolve to loopback/private/link-local addresses. */
    allowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS'),
    /** Development and tests only: lets endpoints use http://. */
    allowHttp: bool('WEBHOOK_ALLOW_HTTP'),
    timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000),
    /** Delivery attempts per endpoint in any 60-second window (spec: 100). */
    ratePerMinute: Math.max(1, int('WEBHOOK_RATE_LIMIT_PER_MINUTE', 100)),
    /** Deliveries that exhausted every retry in a row before the endpoint is disabled. */
    disableAfterFailures: Math.max(1, int('WEBHOOK_DISABLE_AFTER_FAILURES', 20)),
    maxPerUser: int('WEBHOOK_MAX_PER_USER', 20),
    /** After a secret rotation, how long the replaced secret still signs deliveries (beside the new one); a rotation may ask for less. */
    rotationGraceHours: int('WEBHOOK_SECRET_ROTATION_GRACE_HOURS', 24),
  };
}
