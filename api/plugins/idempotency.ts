import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { getPool, poolFigures, saturationRefusalOf } from '../../domain/db/pool';
import { ApiError } from '../errors';

const RETENTION_HOURS = 24;
// A request that has held its key this long is presumed dead (crashed process) and may be retried.
// Handlers pass the key down to the operation, which records it in the transaction that moves the
// money (requestKeyOf) and answers a re-run with what the first run made: a takeover never doubles money.
const LOCK_SECONDS = 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyScope?: string;
    /** A 200 that is no final answer (GraphQL errors of a 5xx or 429 status): the key is released, not stored. */
    answerNotFinal?: boolean;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

type Stored = {
  request_hash: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  locked_at: Date;
  expired: boolean;
};

async function claim(scope: string, key: string, request: FastifyRequest, hash: string): Promise<'claimed' | Stored> {
  const pool = getPool();
  const inserted = await pool.query(
    `INSERT INTO idempotency_keys (scope, key, method, path, request_hash, state, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'in_flight', now() + make_interval(hours => $6))
     ON CONFLICT (scope, key) DO NOTHING`,
    [scope, key, request.method, request.url, hash, RETENTION_HOURS],
  );
  if (inserted.rowCount === 1) return 'claimed';
  const { rows } = await pool.query<Stored>(
    `SELECT request_hash, state, response_status, response_body, response_headers, locked_at,
            expires_at < now() AS expired
       FROM idempotency_keys WHERE scope = $1 AND key = $2`,
    [scope, key],
  );
  const row = rows[0];
  if (!row) return claim(scope, key, request, hash); // deleted in between (a 5xx released it)
  if (row.expired) {
    await pool.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at < now()`, [scope, key]);
    return claim(scope, key, request, hash);
  }
  if (row.request_hash === hash && row.state === 'in_flight') {
    const taken = await pool.query(
      `UPDATE idempotency_keys SET locked_at = now()
        WHERE scope = $1 AND key = $2 AND state = 'in_flight' AND locked_at < now() - make_interval(secs => $3)`,
      [scope, key, LOCK_SECONDS],
    );
    if (taken.rowCount === 1) return 'claimed';
  }
  return row;
}

const settling = new Set<Promise<void>>();

type KeyWrite = (pool: pg.Pool) => Promise<unknown>;

/**
 * Writes what became of a claimed key: its release (the answer is not final) or the answer kept.
 * A saturated pool neither delays a refusal nor turns an answer into one: the write then waits for
 * a connection in the background, one acquire timeout after another, until it gets one or the
 * key's lock has lapsed (a retry takes the key over then anyway). A release does not even wait
 * once when no connection is free (the answer is often that very saturation refusal).
 */
async function settleKey(request: FastifyRequest, write: KeyWrite, opts: { waitIfFull: boolean }): Promise<void> {
  const pool = getPool();
  const f = poolFigures(pool);
  if (!opts.waitIfFull && f.idle === 0 && f.total >= f.max) return settleInBackground(request, pool, write);
  try {
    await write(pool);
  } catch (err) {
    if (!saturationRefusalOf(err)) throw err;
    settleInBackground(request, pool, write);
  }
}

function settleInBackground(request: FastifyRequest, pool: pg.Pool, write: KeyWrite): void {
  const giveUpAt = Date.now() + LOCK_SECONDS * 1000;
  const p = (async () => {
    for (;;) {
      try {
        await write(pool);
        return;
      } catch (err) {
        // Each saturated attempt has waited the acquire timeout: no busy loop.
        if (saturationRefusalOf(err) && Date.now() < giveUpAt) continue;
        request.log.warn({ err }, 'idempotency key not settled: a retry takes it over once its lock lapses');
        return;
      }
    }
  })().finally(() => settling.delete(p));
  settling.add(p);
}

/** Resolves once every key write left to the background has ended (tests; a shutdown that wants them). */
export async function keyWritesSettled(): Promise<void> {
  while (settling.size > 0) await Promise.allSettled([...settling]);
}

/**
 * The request's Idempotency-Key as an operation records it (transfers.request_key,
 * defi_swaps.request_key): the key in the scope the middleware keeps it in (the credential), so a
 * takeover of a stale key finds the operation its first run made. A hash: fixed length, and the
 * client's key is not stored beside the money.
 */
export function operationRequestKey(scope: string, key: string): string {
  return `idem:${createHash('sha256').update(`${scope}\u0000${key}`).digest('hex')}`;
}

/** The claimed Idempotency-Key of this request as an operation records it, or undefined without one. */
export function requestKeyOf(request: FastifyRequest): string | undefined {
  return request.idempotencyScope && request.idempotencyKey ? operationRequestKey(request.idempotencyScope, request.idempotencyKey) : undefined;
}

/**
 * Idempotency-Key on POST/PUT/PATCH: the first request with a key runs and its response is
 * kept for 24 hours; the same key and body replays it (Idempotent-Replayed: true); the same key
 * with another body, or while the first is still running, is 409. Keys are per credential.
 */
export function registerIdempotency(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!['POST', 'PUT', 'PATCH'].includes(request.method)) return;
    const raw = request.headers['idempotency-key'];
    if (raw === undefined || request.routeOptions.config?.idempotency === false || !request.principal) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError(400, 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
        source: { header: 'idempotency-key' },
      });
    }
    const scope = request.principal.credentialId;
    const hash = requestHash(request);
    const result = await claim(scope, key, request, hash);
    if (result === 'claimed') {
      request.idempotencyKey = key;
      request.idempotencyScope = scope;
      return;
    }
    if (result.request_hash !== hash) {
      throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request', {
        source: { header: 'idempotency-key' },
      });
    }
    if (result.state === 'in_flight') {
      throw new ApiError(409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed', {
        source: { header: 'idempotency-key' },
      });
    }
    reply.headers(result.response_headers ?? {});
    reply.header('idempotent-replayed', 'true');
    return reply.code(result.response_status ?? 200).send(result.response_body ?? '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.idempotencyScope || !request.idempotencyKey) return payload;
    const scope = request.idempotencyScope;
    const key = request.idempotencyKey;
    request.idempotencyScope = undefined; // store once even if onSend runs again for an error
    const status = reply.statusCode;
    if (status >= 500 || status === 429 || request.answerNotFinal || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      // Not a final answer: release the key so the client can retry.
      await settleKey(request, (pool) => pool.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2`, [scope, key]), { waitIfFull: false });
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'location']) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    const body = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
    await settleKey(
      request,
      (pool) =>
        pool.query(
          `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_body = $4, response_headers = $5
            WHERE scope = $1 AND key = $2`,
          [scope, key, status, body, JSON.stringify(headers)],
        ),
      { waitIfFull: true },
    );
    return payload;
  });
}

export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  const r = await getPool().query(`DELETE FROM idempotency_keys WHERE expires_at < now()`);
  return r.rowCount ?? 0;
}
