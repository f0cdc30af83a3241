import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../platform/errors';
import { webhookConfig } from './config';

/**
 * Addresses a webhook may never reach (SSRF): loopback, private, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, unspecified, benchmark, documentation, multicast and reserved ranges,
 * in IPv4 and IPv6 (IPv4-mapped IPv6 is checked as IPv4).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isForbiddenAddress(mapped[1]);
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

export class UnsafeUrlError extends DomainError {
  constructor(message: string) {
    super(422, 'INVALID_WEBHOOK_URL', message, '/url');
  }
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));
}

/** The URL as a parsed object when it is acceptable in form (scheme, no credentials, a host). */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('url is not a valid absolute URL');
  }
  const cfg = webhookConfig();
  if (url.protocol !== 'https:' && !(cfg.allowHttp && url.protocol === 'http:')) {
    throw new UnsafeUrlError('url must use https');
  }
  if (url.username || url.password) throw new UnsafeUrlError('url must not carry credentials');
  if (!url.hostname) throw new UnsafeUrlError('url must name a host');
  return url;
}

/** Host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Refuses a URL whose host is, or resolves to, a forbidden address (every resolved address is
 * checked: one private answer among public ones is enough to refuse). Checked at registration;
 * delivery checks again at connect time (see sender.ts) against DNS rebinding.
 */
export async function assertSafeWebhookUrl(raw: string): Promise<URL> {
  const url = parseWebhookUrl(raw);
  if (webhookConfig().allowPrivateUrls) return url;
  const host = bareHost(url);
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw new UnsafeUrlError(`url points to a private, loopback or link-local address (${host})`);
    return url;
  }
  let addrs: LookupAddress[];
  try {
    addrs = await resolveAll(host);
  } catch {
    throw new UnsafeUrlError(`url host ${host} does not resolve`);
  }
  const bad = addrs.find((a) => isForbiddenAddress(a.address));
  if (addrs.length === 0 || bad) {
    throw new UnsafeUrlError(`url host ${host} resolves to a private, loopback or link-local address${bad ? ` (${bad.address})` : ''}`);
  }
  return url;
}

/**
 * A `lookup` for node's http(s).request that refuses forbidden addresses: the address checked is
 * the address connected to, so a DNS answer that changes after registration cannot reach inside.
 */
export function safeLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string } & Record<string, unknown>,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true, verbatim: true } as never, (err: NodeJS.ErrnoException | null, addrs: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const allowPrivate = webhookConfig().allowPrivateUrls;
    const ok = allowPrivate ? addrs : addrs.filter((a) => !isForbiddenAddress(a.address));
    if (ok.length === 0 || (!allowPrivate && ok.length !== addrs.length)) {
      const e = new Error(`refused: ${hostname} resolves to a private, loopback or link-local address`) as NodeJS.ErrnoException;
      e.code = 'EWEBHOOKADDR';
      return callback(e, '', 0);
    }
    if (options.all) return callback(null, ok);
    callback(null, ok[0].address, ok[0].family);
  });
}
