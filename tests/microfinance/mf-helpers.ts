import { expect } from 'vitest';
import type { TestApp, TestUser } from '../helpers/app';

export const MF = '/api/v1/microfinance';

export async function openAccount(t: TestApp, u: TestUser, deposit = '0', asset = 'USD'): Promise<string> {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: u.headers, payload: { name: 'mf' } });
  expect(r.statusCode).toBe(201);
  const id = r.json().data.uuid as string;
  if (deposit !== '0') {
    const d = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${id}/deposit`, headers: u.headers, payload: { amount: deposit, asset_code: asset } });
    expect(d.statusCode).toBe(201);
  }
  return id;
}

export async function available(t: TestApp, u: TestUser, accountId: string, asset = 'USD'): Promise<string> {
  const r = await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${accountId}/balances`, headers: u.headers });
  return r.json().data.balances.find((b: { asset_code: string }) => b.asset_code === asset)?.available_balance ?? '0';
}

export async function post(t: TestApp, headers: Record<string, string>, url: string, payload: unknown = {}) {
  return t.app.inject({ method: 'POST', url: `${MF}${url}`, headers, payload: payload as object });
}

export async function get(t: TestApp, headers: Record<string, string>, url: string) {
  return t.app.inject({ method: 'GET', url: `${MF}${url}`, headers });
}
