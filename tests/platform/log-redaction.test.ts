import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app';
import { MemoryRateLimiter } from '../../domain/platform/rate-limiter';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => t?.close());

describe('request logs', () => {
  it('never carry credentials, partner keys or signed payment authorizations', async () => {
    const out = new PassThrough();
    let logged = '';
    out.on('data', (d) => (logged += d));
    process.env.LOG_LEVEL = 'info';
    const app = await buildApp({ logStream: out, rateLimiter: new MemoryRateLimiter() });
    try {
      const secrets = {
        authorization: 'Bearer sk_sandbox_secretsecretsecret',
        'x-partner-key': 'fpk_partnersecret',
        'payment-signature': 'cGF5bWVudC1zaWduYXR1cmUtc2VjcmV0',
        'x-payment-signature': '0xsignaturesecret',
        'x-payment-payload': 'cGF5bG9hZC1zZWNyZXQ=',
        'x-twilio-signature': 'twiliosecret',
      };
      await app.inject({ method: 'GET', url: '/api/v2/accounts', headers: secrets });
      await app.inject({ method: 'POST', url: '/api/v1/sms/send', headers: { ...secrets, authorization: 'Payment c2VjcmV0LWNyZWRlbnRpYWw' }, payload: { to: '+4915112345678', from: 'Bank', message: 'hi' } });
      // Requests are logged (method, url, status) but their headers never (and are redacted if a serializer adds them).
      expect(logged).toContain('/api/v1/sms/send');
      for (const v of [...Object.values(secrets), 'c2VjcmV0LWNyZWRlbnRpYWw']) expect(logged, v).not.toContain(v.replace(/^Bearer /, ''));
    } finally {
      process.env.LOG_LEVEL = 'silent';
      await app.close();
    }
  });
});
