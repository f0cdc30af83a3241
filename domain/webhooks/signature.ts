import { createHmac, timingSafeEqual } from 'node:crypto';

/** X-Webhook-Signature: lowercase hex HMAC-SHA256 of the exact body text, keyed by the webhook secret. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** X-Webhook-Signature-V2: `t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">` so receivers can refuse replays. */
export function signV2(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** Every header a delivery carries besides content-type. */
export function deliveryHeaders(input: { secret: string; body: string; eventId: string; eventType: string; deliveryId: string; timestamp: number }) {
  return {
    'x-webhook-id': input.eventId,
    'x-webhook-event': input.eventType,
    'x-webhook-delivery': input.deliveryId,
    'x-webhook-timestamp': String(input.timestamp),
    'x-webhook-signature': signBody(input.secret, input.body),
    'x-webhook-signature-v2': signV2(input.secret, input.body, input.timestamp),
  };
}

/**
 * Receiver-side check (for SDKs and docs): the V2 header must carry a v1 HMAC matching the body
 * and a timestamp within `toleranceSeconds` of now.
 */
export function verifySignatureV2(secret: string, body: string, header: string, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=', 2) as [string, string]));
  const t = Number.parseInt(parts.t ?? '', 10);
  if (!Number.isFinite(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(signV2(secret, body, t).split('v1=')[1], 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
