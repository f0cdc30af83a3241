import { expect } from 'vitest';
import { getPool } from '../../domain/db/pool';
import type { TestApp } from '../helpers/app';

export async function openFundedAccount(t: TestApp, headers: Record<string, string>, amount = '1000.00', asset = 'USD'): Promise<string> {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers, payload: { name: 'acct' } });
  const id = r.json().data.uuid as string;
  if (amount !== '0') {
    const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${id}/deposit`, headers, payload: { amount, asset_code: asset } });
    expect(d.statusCode).toBe(201);
  }
  return id;
}

export async function balance(t: TestApp, headers: Record<string, string>, id: string, asset = 'USD') {
  const r = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${id}/balances`, headers });
  return r.json().data.balances.find((b: { asset_code: string }) => b.asset_code === asset) ?? null;
}

/** Polls the transfer until it leaves the given states (workflows finish asynchronously). */
export async function waitForTransfer(
  t: TestApp,
  headers: Record<string, string>,
  id: string,
  until: (status: string, transfer: Record<string, any>) => boolean,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await t.app.inject({ method: 'GET', url: `/api/v2/transfers/${id}`, headers });
    const data = r.json().data;
    if (until(data.status, data)) return data;
    if (Date.now() > deadline) throw new Error(`transfer ${id} still ${data.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export const settled = (s: string) => s === 'completed' || s === 'failed';

/** The ids of the transfers sent from an account, oldest first. */
export async function transfersFrom(accountId: string): Promise<string[]> {
  const { rows } = await getPool().query<{ id: string }>('SELECT id FROM transfers WHERE from_account_id = $1 ORDER BY created_at, id', [accountId]);
  return rows.map((r) => r.id);
}
