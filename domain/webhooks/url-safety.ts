import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../platform/errors';
import { webhookConfig } from './config';

/**
 * Addresses a webhook may never reach (SSRF): loopback, private, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, unspecified, benchmark, documentation, multicast and reserved ranges.
 * IPv6 is decided on the address's 16 bytes, never on its spelling: only global unicast
 * (2000::/3) minus its special ranges is public, and every IPv6 form that carries an IPv4 address
 * (IPv4-compatible, -mapped, -translated, NAT64, 6to4, Teredo server and client, ISATAP) is
 * judged by that IPv4 address as well.
 */
const blocked4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked4.addSubnet(net, prefix, 'ipv4');
}

/** Special ranges inside global unicast 2000::/3 (everything outside it is refused anyway). */
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  blocked6.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (as isIP accepts it, without a zone), or null. */
export function ipv6Bytes(address: string): Uint8Array | null {
  if (isIP(address) !== 6 || address.includes('%')) return null;
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (isIP(dotted[2]) !== 4) return null;
    tail.push(...dotted[2].split('.').map(Number));
    text = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const words = 8 - tail.length / 2;
  const fill = halves.length === 2 ? words - head.length - rest.length : 0;
  if (fill < 0 || head.length + fill + rest.length !== words) return null;
  const all = [...head, ...Array(fill).fill(0), ...rest];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  bytes.set(tail, 12);
  return bytes;
}

const v4 = (b: Uint8Array, at: number, xor = 0) => [0, 1, 2, 3].map((i) => (b[at + i] ^ xor) & 0xff).join('.');
const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/** The IPv4 addresses an IPv6 address carries, by the form it has (empty for none). */
export function embeddedIpv4(b: Uint8Array): string[] {
  // ::a.b.c.d (IPv4-compatible, ::/96), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT)
  if (zero(b, 0, 10) && ((b[10] === 0 && b[11] === 0) || (b[10] === 0xff && b[11] === 0xff))) return [v4(b, 12)];
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return [v4(b, 12)];
  // NAT64 well-known prefix 64:ff9b::/96
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12)) return [v4(b, 12)];
  const found: string[] = [];
  // 6to4 2002:AABB:CCDD::/48
  if (b[0] === 0x20 && b[1] === 0x02) found.push(v4(b, 2));
  // Teredo 2001:0::/32: server in bits 32-63, client (XOR 0xffffffff) in bits 96-127
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) found.push(v4(b, 4), v4(b, 12, 0xff));
  // ISATAP interface identifier [0|2]00:5efe:a.b.c.d (u/g bits may be set)
  if ((b[8] & 0xfc) === 0 && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) found.push(v4(b, 12));
  return found;
}

function isPublicEmbeddingPrefix(b: Uint8Array): boolean {
  // The forms outside 2000::/3 that are decided by their IPv4 address alone.
  return (zero(b, 0, 10) && ((b[10] === 0 && b[11] === 0) || (b[10] === 0xff && b[11] === 0xff))) ||
    (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) ||
    (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12));
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked4.check(address, 'ipv4');
  const b = family === 6 ? ipv6Bytes(address) : null;
  if (!b) return true;
  const embedded = embeddedIpv4(b);
  if (embedded.some((a) => blocked4.check(a, 'ipv4'))) return true;
  if (isPublicEmbeddingPrefix(b)) return false;
  // Only global unicast is public; NAT64 local-use (64:ff9b:1::/48) falls outside it and is refused.
  if ((b[0] & 0xe0) !== 0x20) return true;
  const canonical = Array.from({ length: 8 }, (_, i) => ((b[2 * i] << 8) | b[2 * i + 1]).toString(16)).join(':');
  return blocked6.check(canonical, 'ipv6');
}

export class UnsafeUrlError extends DomainError {
  constructor(message: string) {
    super('INVALID_WEBHOOK_URL', message, '/url');
  }
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** Every address of a name, as the system resolver gives them. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

export interface AddressPolicy {
  /** How names are resolved (default: the system resolver). */
  resolve?: Resolver;
  /** Which addresses are refused (default: isForbiddenAddress, or none under WEBHOOK_ALLOW_PRIVATE_URLS). */
  isForbidden?: (address: string) => boolean;
}

function forbiddenBy(policy: AddressPolicy): (address: string) => boolean {
  if (policy.isForbidden) return policy.isForbidden;
  return webhookConfig().allowPrivateUrls ? () => false : isForbiddenAddress;
}

/**
 * The one address a URL's host may be reached at: an IP literal as it is, a name resolved once
 * with every answer checked (one forbidden answer among public ones is enough to refuse).
 * The caller connects to this address and to no other (see pinnedLookup), so a name that
 * resolves elsewhere after the check (DNS rebinding) cannot reach inside.
 */
export async function resolveCheckedAddress(url: URL, policy: AddressPolicy = {}): Promise<LookupAddress> {
  const host = bareHost(url);
  const forbidden = forbiddenBy(policy);
  const literal = isIP(host);
  if (literal) {
    if (forbidden(host)) throw new UnsafeUrlError(`url points to a private, loopback or link-local address (${host})`);
    return { address: host, family: literal };
  }
  let addrs: LookupAddress[];
  try {
    addrs = await (policy.resolve ?? systemResolver)(host);
  } catch {
    throw new UnsafeUrlError(`url host ${host} does not resolve`);
  }
  if (addrs.length === 0) throw new UnsafeUrlError(`url host ${host} does not resolve`);
  const bad = addrs.find((a) => forbidden(a.address));
  if (bad) throw new UnsafeUrlError(`url host ${host} resolves to a private, loopback or link-local address (${bad.address})`);
  return addrs[0];
}

/**
 * A `lookup` for node's http(s).request that answers with the checked address only, whatever
 * name it is asked for: the connection goes there while Host and TLS SNI keep the URL's name.
 */
export function pinnedLookup(pinned: LookupAddress) {
  return (
    _hostname: string,
    options: { all?: boolean } & Record<string, unknown>,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
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

/** Refuses a URL whose host is, or resolves to, a forbidden address (on registration and update). */
export async function assertSafeWebhookUrl(raw: string): Promise<URL> {
  const url = parseWebhookUrl(raw);
  if (webhookConfig().allowPrivateUrls) return url;
  await resolveCheckedAddress(url);
  return url;
}
