/**
 * Monetized endpoints: a platform GET route that, in one environment, answers 402 until the request
 * carries a payment (api/plugins/x402.ts). Operators register them; the price is in US cents and is
 * paid in USDC at par (1 cent = 10,000 atomic units) to the platform's address, into fee revenue.
 *
 * The route table is read on every request, so it is cached per process and reloaded every few
 * seconds; a change reaches every process's copy at once by a notice, as for API keys
 * (domain/events/cache-notices.ts).
 */
import { getPool, type Queryable, onPoolClosed, withTransaction } from '../db/pool';
import { cacheEpoch, cachesTrusted, canStore, credentialsChanged, registerCache } from '../events/cache-notices';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { centsToAtomic } from './amounts';
import type { PaymentTerms } from './authorization';
import { paymentAsset, paymentNetwork, usdcAsset } from './networks';
import { payToAddress } from './requirements';

export interface MonetizedEndpoint {
  id: string;
  environment: Environment;
  /** The route pattern as registered in Fastify (":id" parameters). */
  path: string;
  method: 'GET';
  priceUsdCents: number;
  network: string;
  asset: string;
  payTo: string;
  description: string;
  createdBy: string;
  active: boolean;
  createdAt: Date;
}

const COLUMNS = `id, environment, path, method, price_usd_cents AS "priceUsdCents", network, asset, pay_to AS "payTo", description,
  created_by AS "createdBy", active, created_at AS "createdAt"`;

/** Routes that can never be monetized: payments themselves, sign-in, health and the docs. */
const UNPAYABLE = [/^\/(api\/(v\d\/)?)?x402(\/|$)/, /^\/api\/(v\d\/)?auth(\/|$)/, /^\/(api\/)?(health|ready)(\/|$)/, /^\/api\/documentation/, /^\/api\/v1\/sms(\/|$)/, /^\/mcp(\/|$)/];

/**
 * Whether a route pattern can be registered at all. The payment gate asks this first, so the probes
 * (/api/health, /api/ready) never wait for a database connection to learn they cost nothing.
 */
export function monetizable(pattern: string): boolean {
  return !UNPAYABLE.some((r) => r.test(pattern));
}

/**
 * The resource a route pattern serves, whichever API version's path it is: "/api/v2/accounts/:uuid"
 * and its unversioned twin "/api/accounts/:uuid" (and a /api/v1 twin) are one resource, so a price
 * registered on either applies to all of them.
 */
export function resourceKey(pattern: string): string {
  return pattern.replace(/^\/api\/v\d+\//, '/api/');
}

/** "/api/v2/accounts/{id}" → "/api/v2/accounts/:id" (the OpenAPI form is accepted too). */
export function routePattern(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1').replace(/\/+$/, '') || '/';
}

export interface RegisterEndpointInput {
  path: unknown;
  priceUsdCents: unknown;
  network: unknown;
  asset: unknown;
  description: unknown;
}

/**
 * Registers (or re-prices: the active registration of the same path is replaced) a GET route as paid
 * in the caller's environment. `isGetRoute` is the API's route table (a domain rule cannot see it).
 */
export async function registerEndpoint(
  by: { userId: string; environment: Environment },
  input: RegisterEndpointInput,
  isGetRoute: (pattern: string) => boolean,
): Promise<MonetizedEndpoint> {
  if (typeof input.path !== 'string' || !input.path.startsWith('/') || input.path.length > 300) throw new DomainError('VALIDATION_ERROR', 'path must be a route path starting with /', '/path');
  const path = routePattern(input.path.split('?')[0]);
  if (!monetizable(path)) throw new DomainError('ENDPOINT_NOT_MONETIZABLE', `${path} cannot be monetized`, '/path');
  if (!isGetRoute(path)) throw new DomainError('ROUTE_NOT_FOUND', `No GET route ${path} on this platform`, '/path');
  const cents = input.priceUsdCents;
  if (typeof cents !== 'number' || !Number.isSafeInteger(cents) || cents < 1 || cents > 100_000) {
    throw new DomainError('VALIDATION_ERROR', 'price_usd_cents must be an integer from 1 to 100000', '/price_usd_cents');
  }
  const network = paymentNetwork(input.network, by.environment);
  const asset = paymentAsset(network, input.asset);
  if (typeof input.description !== 'string' || !input.description.trim() || input.description.length > 500) {
    throw new DomainError('VALIDATION_ERROR', 'description must be 1 to 500 characters', '/description');
  }
  const description = input.description.trim();
  const payTo = payToAddress(by.environment);
  // One transaction: a re-pricing never leaves the resource free between its two writes.
  const created = await withTransaction(async (c) => {
    // One active price per resource: registering a twin path re-prices the resource (resourceKey decides).
    const twins = (await listEndpoints(by.environment, c)).filter((e) => resourceKey(e.path) === resourceKey(path)).map((e) => e.id);
    await c.query(`UPDATE x402_endpoints SET active = false, updated_at = now() WHERE id = ANY($1::text[]) AND active`, [twins]);
    const { rows } = await c.query<MonetizedEndpoint>(
      `INSERT INTO x402_endpoints (id, environment, path, price_usd_cents, network, asset, pay_to, description, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [newId('x402ep'), by.environment, path, cents, network.network, asset.address, payTo, description, by.userId],
    );
    return rows[0];
  });
  await credentialsChanged({ cache: 'x402', environment: by.environment });
  return created;
}

export async function listEndpoints(environment: Environment, c: Queryable = getPool()): Promise<MonetizedEndpoint[]> {
  const { rows } = await c.query<MonetizedEndpoint>(`SELECT ${COLUMNS} FROM x402_endpoints WHERE environment = $1 AND active ORDER BY path`, [environment]);
  return rows;
}

export async function deactivateEndpoint(environment: Environment, id: string): Promise<MonetizedEndpoint> {
  const { rows } = await getPool().query<MonetizedEndpoint>(
    `UPDATE x402_endpoints SET active = false, updated_at = now() WHERE id = $1 AND environment = $2 RETURNING ${COLUMNS}`,
    [id, environment],
  );
  if (!rows[0]) throw new DomainError('ENDPOINT_NOT_FOUND', `Endpoint ${id} not found`);
  await credentialsChanged({ cache: 'x402', environment });
  return rows[0];
}

const CACHE_MS = 5_000;
const cache = new Map<string, { at: number; byPath: Map<string, MonetizedEndpoint> }>();
onPoolClosed(() => cache.clear());
registerCache('x402', (n) => {
  if (!n || n.cache !== 'x402' || !n.environment) return cache.clear();
  cache.delete(n.environment);
});

/** The active registration of a route pattern's resource (any of its twin paths) in an environment, if any (cached). */
export async function monetizedEndpoint(environment: Environment, pattern: string): Promise<MonetizedEndpoint | null> {
  let hit = cachesTrusted() ? cache.get(environment) : undefined;
  if (!hit || Date.now() - hit.at > CACHE_MS) {
    const taken = cacheEpoch();
    hit = { at: Date.now(), byPath: new Map((await listEndpoints(environment)).map((e) => [resourceKey(e.path), e])) };
    if (canStore(taken)) cache.set(environment, hit);
  }
  return hit.byPath.get(resourceKey(pattern)) ?? null;
}

/** GET /api/v2/accounts/{uuid}/balances: GraphQL's Account.balances and MCP's get_balances serve it too. */
export const ACCOUNT_BALANCES_RESOURCE = '/api/v2/accounts/:uuid/balances';

/**
 * For transports that cannot take a payment (GraphQL fields, MCP tools): the resource of a REST
 * route is not served free elsewhere while it is paid. Throws 402 PAYMENT_REQUIRED naming where to pay.
 */
export async function refuseIfMonetized(environment: Environment, restPattern: string): Promise<void> {
  const endpoint = await monetizedEndpoint(environment, restPattern);
  if (endpoint) {
    throw new DomainError('PAYMENT_REQUIRED', `This data is paid per request (${endpoint.priceUsdCents} US cents): GET ${endpoint.path} with an x402 payment`);
  }
}

export function endpointTerms(e: MonetizedEndpoint): PaymentTerms {
  const network = paymentNetwork(e.network, e.environment);
  return { network, asset: usdcAsset(network), amount: centsToAtomic(e.priceUsdCents), payTo: e.payTo };
}
