import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { ensureChainLedgerAccount, findChainLedgerAccount } from '../../domain/chains/books';
import { getPool } from '../../domain/db/pool';
import { eventTypeInfo } from '../../domain/events/catalog';
import { getLedgerAccount, postEntry, systemAccount, trialBalance } from '../../domain/ledger';
import type { TestApp } from '../helpers/app';

/** An account of the caller, opened through the API. */
export async function openAccount(t: TestApp, headers: Record<string, string>): Promise<string> {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers, payload: { name: 'defi' } });
  expect(r.statusCode).toBe(201);
  return r.json().data.uuid as string;
}

/** Tokens arriving on a chain book (as an on-chain deposit would): funding -> the book. */
export async function fundBook(accountId: string, asset: string, chain: string, amount: string): Promise<void> {
  const key = `test:fund:${randomUUID()}`;
  const book = await ensureChainLedgerAccount(getPool(), accountId, asset, chain);
  await postEntry({
    environment: 'sandbox',
    idempotencyKey: key,
    type: 'deposit',
    lines: [
      { accountId: await systemAccount('sandbox', asset, 'funding', key), direction: 'debit', amount },
      { accountId: book, direction: 'credit', amount },
    ],
  });
}

export async function book(accountId: string, asset: string, chain: string) {
  const id = await findChainLedgerAccount(accountId, asset, chain);
  if (!id) return { available: '0', reserved: '0', total: '0' };
  const la = (await getLedgerAccount(id))!;
  return { available: la.availableBalance, reserved: la.reservedBalance, total: la.totalBalance };
}

export async function reserves(poolId: string, environment = 'sandbox'): Promise<bigint[]> {
  const { rows } = await getPool().query<{ reserves: string[] }>('SELECT reserves::text[] AS reserves FROM defi_pools WHERE environment = $1 AND id = $2', [environment, poolId]);
  return rows[0].reserves.map((x) => BigInt(x));
}

export async function allReserves(environment = 'sandbox'): Promise<Map<string, string>> {
  const { rows } = await getPool().query<{ id: string; r: string }>('SELECT id, reserves::text AS r FROM defi_pools WHERE environment = $1', [environment]);
  return new Map(rows.map((x) => [x.id, x.r]));
}

export async function expectBalancedLedger(): Promise<void> {
  const tb = await trialBalance({ environment: 'sandbox' });
  expect(tb.assets.filter((a) => !a.balanced)).toEqual([]);
}

/** Every swap.completed event in the outbox matches the catalog's schema; returns them. */
export async function swapEvents(): Promise<Array<Record<string, unknown>>> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const info = eventTypeInfo('swap.completed')!;
  expect(info.produced).toBe(true);
  const validate = ajv.compile(info.data_schema);
  const { rows } = await getPool().query<{ data: Record<string, unknown> }>(`SELECT data FROM platform_events WHERE type = 'swap.completed' ORDER BY occurred_at`);
  for (const r of rows) expect(validate(r.data), ajv.errorsText(validate.errors)).toBe(true);
  return rows.map((r) => r.data);
}

/** An EVM address that is no account's custody address: a wallet the platform cannot sign for. */
export const EVM_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The account's custody address on a chain: the wallet its swaps execute from. */
export { custodyAddress } from '../../domain/chains/custody';

/** Polls the swap until it completed or failed. */
export async function waitSwap(t: TestApp, headers: Record<string, string>, id: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/defi/swap/${id}`, headers });
    const s = r.json().data;
    if (s.status === 'completed' || s.status === 'failed') return s;
    if (Date.now() > until) throw new Error(`swap ${id} still ${s.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The outbox events of a type (of one aggregate), each checked against the catalog's data schema. */
export async function catalogEvents(type: string, aggregateId?: string): Promise<Array<Record<string, any>>> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const info = eventTypeInfo(type)!;
  expect(info.produced).toBe(true);
  const validate = ajv.compile(info.data_schema);
  const { rows } = await getPool().query<{ data: Record<string, unknown> }>(
    'SELECT data FROM platform_events WHERE type = $1 AND ($2::text IS NULL OR aggregate_id = $2) ORDER BY occurred_at',
    [type, aggregateId ?? null],
  );
  for (const r of rows) expect(validate(r.data), ajv.errorsText(validate.errors)).toBe(true);
  return rows.map((r) => r.data);
}
