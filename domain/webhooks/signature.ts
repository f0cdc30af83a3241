import { createHmac, timingSafeEqual } from 'node:crypto';

/** One X-Webhook-Signature value: lowercase hex HMAC-SHA256 of the exact body text, keyed by a webhook secret. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

const signedContent = (secret: string, body: string, timestamp: number) => createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/**
 * X-Webhook-Signature-V2: `t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">`, one `v1=` per secret
 * (two during a rotation's grace period: the new secret's first), as Stripe does, so receivers
 * can refuse replays (stale `t`) and accept either secret while they switch.
 */
export function signV2(secrets: string | readonly string[], body: string, timestamp: number): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((s) => `v1=${signedContent(s, body, timestamp)}`)].join(',');
}

/**
 * Every header a delivery carries besides content-type. `secrets` is the current secret, then the
 * replaced one while its grace period lasts: each signature header then carries two values.
 */
export function deliveryHeaders(input: { secrets: readonly string[]; body: string; eventId: string; eventType: string; deliveryId: string; timestamp: number }) {
  if (input.secrets.length === 0) throw new Error('a delivery needs at least one signing secret');
  return {
    'x-webhook-id': input.eventId,
    'x-webhook-event': input.eventType,
    'x-webhook-delivery': input.deliveryId,
    'x-webhook-timestamp': String(input.timestamp),
    // Comma-separated hex HMACs, the current secret's first (one value outside a rotation's grace).
    'x-webhook-signature': input.secrets.map((s) => signBody(s, input.body)).join(','),
    'x-webhook-signature-v2': signV2(input.secrets, input.body, input.timestamp),
  };
}

function sameHex(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/**
 * Receiver-side check (for SDKs and docs): the V2 header must carry a timestamp within
 * `toleranceSeconds` of now and at least one `v1=` HMAC of "<t>.<body>" under `secret` (a header
 * signed during a rotation's grace carries one per secret; either may match).
 */
export function verifySignatureV2(secret: string, body: string, header: string, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const pairs = header.split(',').map((kv) => {
    const i = kv.indexOf('=');
    return i < 0 ? ['', ''] : [kv.slice(0, i).trim(), kv.slice(i + 1).trim()];
  });
  const ts = pairs.filter(([k]) => k === 't');
  const t = ts.length === 1 && /^\d{1,12}$/.test(ts[0][1]) ? Number(ts[0][1]) : NaN;
  if (!Number.isFinite(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = signedContent(secret, body, t);
  // Every candidate is compared (no early exit on the first match).
  return pairs.filter(([k]) => k === 'v1').reduce((ok, [, v]) => sameHex(v, expected) || ok, false);
}

/** Receiver-side check of X-Webhook-Signature (no timestamp: prefer V2): one of its comma-separated values matches. */
export function verifySignature(secret: string, body: string, header: string): boolean {
  const expected = signBody(secret, body);
  return header.split(',').reduce((ok, v) => sameHex(v.trim(), expected) || ok, false);
}
