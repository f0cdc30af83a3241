/**
 * The one authorization gate (domain/auth/gate.ts, issue 43): REST, GraphQL and MCP ask it the same
 * question and refuse with the same code and message, each in its own shape (REST's envelope with
 * the status of api/error-status.ts, GraphQL's error extensions, MCP's isError tool result). Also
 * the maintenance window: writes are refused on every transport, reads keep working on every
 * transport (MCP's read tools included, although every MCP call is a POST).
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { forgetMaintenanceCache } from '../../domain/platform/maintenance-windows';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { gql } from '../graphql/helpers';

let t: TestApp;
let base: URL;
const clients: Client[] = [];

async function mcp(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'gate-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;

const SMS = { to: '+4915123456789', from: 'Platform', message: 'hello' };
const CREATE_ACCOUNT = 'mutation { createAccount(input: { name: "gate" }) { id } }';

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await t?.close();
});

describe('one authorization gate for REST, GraphQL and MCP', () => {
  it('a read-only key attempting a write: INSUFFICIENT_PERMISSIONS with the same message on all three', async () => {
    const reader = await createTestUser({ permissions: ['read'] });
    const expected = { code: 'INSUFFICIENT_PERMISSIONS', message: "This API key lacks the 'write' permission" };

    const rest = await t.app.inject({ method: 'POST', url: '/api/v1/sms/send', headers: reader.headers, payload: SMS });
    expect(rest.statusCode).toBe(403);
    expect(rest.json().errors).toEqual([{ status: '403', code: expected.code, title: 'Forbidden', detail: expected.message }]);

    const graphql = await gql(t, CREATE_ACCOUNT, undefined, reader.headers);
    expect(graphql.errors).toHaveLength(1);
    expect(graphql.errors![0]).toMatchObject({ message: expected.message, extensions: { code: expected.code, status: 403 } });

    const tool = await callTool(await mcp(reader.headers), 'send_sms', SMS);
    expect(tool.isError).toBe(true);
    expect(tool.structuredContent).toEqual({ error: expected });
  });

  it('during a maintenance window writes are refused with the same MAINTENANCE message on all three, and reads work on all three', async () => {
    const writer = await createTestUser();
    const account = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: writer.headers, payload: { name: 'before' } })).json().data.uuid as string;
    const endsAt = new Date(Date.now() + 120_000);
    const id = `mw_gate${Date.now()}`;
    // The window as its workflow leaves it once started (scheduling it runs a workflow with timers).
    await getPool().query(
      `INSERT INTO maintenance_windows (id, environment, starts_at, ends_at, message, created_by, started_at) VALUES ($1, 'sandbox', now() - interval '1 second', $2, 'gate test', $3, now())`,
      [id, endsAt, writer.userId],
    );
    forgetMaintenanceCache();
    try {
      const expected = { code: 'MAINTENANCE', message: `Planned maintenance until ${endsAt.toISOString()}: gate test` };

      const rest = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: writer.headers, payload: { name: 'during' } });
      expect(rest.statusCode).toBe(503);
      expect(rest.json().errors).toEqual([{ status: '503', code: expected.code, title: 'Service Unavailable', detail: expected.message }]);
      expect(Number(rest.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(rest.headers['retry-after'])).toBeLessThanOrEqual(120);
      expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: writer.headers })).statusCode).toBe(200);

      const graphql = await gql(t, CREATE_ACCOUNT, undefined, writer.headers);
      expect(graphql.errors).toHaveLength(1);
      expect(graphql.errors![0]).toMatchObject({ message: expected.message, extensions: { code: expected.code, status: 503 } });
      const read = await gql(t, '{ accounts { paginatorInfo { total } } }', undefined, writer.headers);
      expect(read.errors).toBeUndefined();
      expect(read.data.accounts.paginatorInfo.total).toBe(1);

      const client = await mcp(writer.headers);
      const balances = await callTool(client, 'get_balances', { account_id: account });
      expect(balances.isError).toBeFalsy();
      expect(balances.structuredContent).toMatchObject({ total_accounts: 1, accounts: [{ uuid: account }] });
      const send = await callTool(client, 'send_sms', SMS);
      expect(send.isError).toBe(true);
      expect(send.structuredContent).toEqual({ error: expected });
    } finally {
      await getPool().query('DELETE FROM maintenance_windows WHERE id = $1', [id]);
      forgetMaintenanceCache();
    }
  });
});
