import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpWebhookSender } from '../../domain/webhooks/sender';
import { isForbiddenAddress, parseWebhookUrl, resolveCheckedAddress } from '../../domain/webhooks/url-safety';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * SSRF: IPv6 forms that embed an IPv4 address are judged by that IPv4 address, and a delivery
 * connects only to the address that was checked (DNS rebinding). No traffic leaves this machine:
 * registrations below never deliver (inactive hooks, IP literals need no DNS), and the sender is
 * only pointed at receivers on 127.0.0.0/8 through an injected resolver.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false';
  process.env.WEBHOOK_ALLOW_HTTP = 'false';
});

/** Every one of these reaches a loopback, private, link-local or reserved IPv4 address. */
const FORBIDDEN_IPV6: Array<[string, string]> = [
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::10.0.0.1', 'IPv4-compatible private'],
  ['::169.254.169.254', 'IPv4-compatible metadata'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated (SIIT) loopback'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
  ['2002:c0a8:101:1::1', '6to4 of 192.168.1.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 well-known prefix, loopback'],
  ['64:ff9b::a00:1', 'NAT64 well-known prefix, 10.0.0.1'],
  ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix, loopback'],
  ['64:ff9b:1:ffff::c0a8:101', 'NAT64 local-use prefix, 192.168.1.1 at the end'],
  ['2001:0:7f00:1::', 'Teredo, server 127.0.0.1'],
  ['2001:0:808:808:0:0:80ff:fffe', 'Teredo, client 127.0.0.1 (obfuscated)'],
  ['2001:0:808:808:8000:f227:f5ff:fffe', 'Teredo, client 10.0.0.1 (obfuscated)'],
  ['2606:4700::5efe:7f00:1', 'ISATAP interface id, loopback'],
  ['2606:4700::200:5efe:a9fe:a9fe', 'ISATAP interface id (universal), metadata'],
  ['fe80::5efe:a00:1', 'ISATAP link-local'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'unique local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['fe80::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['100::1', 'discard'],
];

/** Public addresses, including embedding forms whose IPv4 address is public: these stay allowed. */
const ALLOWED_IPV6 = ['2606:4700:4700::1111', '2001:4860:4860::8888', '2002:808:808::1', '64:ff9b::808:808', '2001:0:808:808:0:0:f7f7:f7f7'];

describe('IPv4-embedded IPv6 forms (registration)', () => {
  it.each(FORBIDDEN_IPV6)('refuses https://[%s]/ (%s) with 422 INVALID_WEBHOOK_URL', async (addr) => {
    const url = `https://[${addr}]/hook`;
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: t.headers, payload: { url, events: ['*'], active: false } });
    expect(r.statusCode, `${url}: ${r.body}`).toBe(422);
    expect(r.json().errors[0]).toMatchObject({ code: 'INVALID_WEBHOOK_URL', source: { pointer: '/url' } });
  });

  it('also refuses them on update', async () => {
    // Registered at loopback (private addresses allowed for this one call): no routable target, ever.
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
    process.env.WEBHOOK_ALLOW_HTTP = 'true';
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/webhooks',
      headers: t.headers,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['*'], active: false },
    });
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false';
    process.env.WEBHOOK_ALLOW_HTTP = 'false';
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    for (const addr of ['::127.0.0.1', '2002:7f00:1::']) {
      const r = await t.app.inject({ method: 'PUT', url: `/api/v2/webhooks/${id}`, headers: t.headers, payload: { url: `https://[${addr}]/x` } });
      expect(r.statusCode, addr).toBe(422);
      expect(r.json().errors[0].code).toBe('INVALID_WEBHOOK_URL');
    }
    await t.app.inject({ method: 'DELETE', url: `/api/v2/webhooks/${id}`, headers: t.headers });
  });

  it('accepts public IPv6 addresses, including embedding forms of a public IPv4 address', async () => {
    // The registration check itself, without registering a routable target.
    for (const addr of ALLOWED_IPV6) {
      const url = parseWebhookUrl(`https://[${addr}]/hook`);
      // The URL parser writes the address canonically (e.g. :: for zero groups).
      expect(await resolveCheckedAddress(url), addr).toEqual({ address: url.hostname.slice(1, -1), family: 6 });
    }
  });

  it('judges the address by its bytes, whatever its spelling', () => {
    for (const [addr] of FORBIDDEN_IPV6) expect(isForbiddenAddress(addr), addr).toBe(true);
    for (const addr of ALLOWED_IPV6) expect(isForbiddenAddress(addr), addr).toBe(false);
    // Same address, other spellings.
    for (const addr of ['0:0:0:0:0:0:7f00:1', '0000::127.0.0.1', '::FFFF:7F00:0001', '2002:7F00:0001:0:0:0:0:0']) {
      expect(isForbiddenAddress(addr), addr).toBe(true);
    }
    for (const bad of ['', 'not-an-ip', '1.2.3', '::1%lo', 'fe80::1%eth0']) expect(isForbiddenAddress(bad), bad).toBe(true);
  });
});

interface Rx {
  host: string;
  port: number;
  hosts: string[];
  close(): Promise<void>;
}

async function receiverOn(host: string, port = 0): Promise<Rx> {
  const hosts: string[] = [];
  const server = http.createServer((req, res) => {
    hosts.push(String(req.headers.host));
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, res);
  });
  return {
    host,
    port: (server.address() as AddressInfo).port,
    hosts,
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

describe('address pinning at delivery (DNS rebinding)', () => {
  beforeEach(() => {
    process.env.WEBHOOK_ALLOW_HTTP = 'true';
  });

  it('connects only to the address it checked, even when the name resolves elsewhere afterwards', async () => {
    // 127.0.0.1 stands for the public address that passed the check; 127.0.0.2 for the inside
    // address the name is rebound to after the check. Both are this machine's loopback.
    const good = await receiverOn('127.0.0.1');
    const inside = await receiverOn('127.0.0.2', good.port);
    try {
      const answers: string[] = [];
      const sender = new HttpWebhookSender({
        // The first answer is the one checked; every later one is the rebound address.
        resolve: async () => {
          const address = answers.length === 0 ? '127.0.0.1' : '127.0.0.2';
          answers.push(address);
          return [{ address, family: 4 }];
        },
        isForbidden: (address) => address !== '127.0.0.1',
      });
      const url = `http://rebind.example.test:${good.port}/hook`;
      const first = await sender.send({ url, body: '{}', headers: {}, timeoutMs: 5_000 });
      expect(first, JSON.stringify(first)).toMatchObject({ ok: true, statusCode: 200 });
      // Resolved once; the connection went to the checked address, with the original name as Host.
      expect(answers).toEqual(['127.0.0.1']);
      expect(good.hosts).toEqual([`rebind.example.test:${good.port}`]);
      expect(inside.hosts).toEqual([]);
      // The next delivery resolves afresh, sees the rebound (forbidden) answer and does not connect.
      const second = await sender.send({ url, body: '{}', headers: {}, timeoutMs: 5_000 });
      expect(second).toMatchObject({ ok: false, statusCode: null });
      expect(second.error).toMatch(/refused/);
      expect(answers).toEqual(['127.0.0.1', '127.0.0.2']);
      expect(good.hosts.length).toBe(1);
      expect(inside.hosts).toEqual([]);
    } finally {
      await good.close();
      await inside.close();
    }
  });

  it('refuses without connecting when any answer is forbidden, or when there is none', async () => {
    const rx = await receiverOn('127.0.0.1');
    try {
      const url = `http://mixed.example.test:${rx.port}/hook`;
      const cases: Array<Array<{ address: string; family: number }>> = [
        [{ address: '127.0.0.1', family: 4 }],
        [
          { address: '2606:4700:4700::1111', family: 6 },
          { address: '127.0.0.1', family: 4 },
        ],
        [{ address: '::ffff:127.0.0.1', family: 6 }],
        [{ address: '2002:7f00:1::', family: 6 }],
        [],
      ];
      for (const answer of cases) {
        const sender = new HttpWebhookSender({ resolve: async () => answer });
        const r = await sender.send({ url, body: '{}', headers: {}, timeoutMs: 2_000 });
        expect(r, JSON.stringify(answer)).toMatchObject({ ok: false, statusCode: null });
        expect(r.error, JSON.stringify(answer)).toMatch(/refused|does not resolve/);
      }
      // IP literals are checked too, with no resolution at all.
      let resolved = 0;
      const sender = new HttpWebhookSender({ resolve: async () => (resolved++, []) });
      for (const host of ['127.0.0.1', '[::127.0.0.1]', '[2002:7f00:1::]']) {
        const r = await sender.send({ url: `http://${host}:${rx.port}/hook`, body: '{}', headers: {}, timeoutMs: 2_000 });
        expect(r.error, host).toMatch(/refused/);
      }
      expect(resolved).toBe(0);
      expect(rx.hosts).toEqual([]);
    } finally {
      await rx.close();
    }
  });

  it('with the development allowance on, still connects to the one address it resolved', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
    const rx = await receiverOn('127.0.0.1');
    try {
      let calls = 0;
      const sender = new HttpWebhookSender({ resolve: async () => (calls++, [{ address: '127.0.0.1', family: 4 }]) });
      const r = await sender.send({ url: `http://dev.example.test:${rx.port}/hook`, body: '{}', headers: {}, timeoutMs: 5_000 });
      expect(r).toMatchObject({ ok: true, statusCode: 200 });
      expect(calls).toBe(1);
      expect(rx.hosts).toEqual([`dev.example.test:${rx.port}`]);
    } finally {
      await rx.close();
    }
  });
});
