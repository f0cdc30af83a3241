import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { getTransfer } from '../../domain/transfers/records';
import { startOrphanedTransferWorkflows } from '../../domain/transfers/repair';
import { startTransferWorkflow } from '../../domain/transfers/workflow';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from './helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

describe('transfers whose workflow never started', () => {
  it('are started by the housekeeping sweep; a finished transfer\'s workflow is never run twice', async () => {
    const from = await openFundedAccount(t, t.headers, '1000.00');
    const to = await openFundedAccount(t, (await createTestUser()).headers, '0');
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: from, to_account: to, amount: '100.00', asset_code: 'USD', workflow_enabled: true } });
    expect(r.statusCode, r.body).toBe(201);
    const first = r.json().data.uuid as string;
    expect((await waitForTransfer(t, t.headers, first, settled)).status).toBe('completed');
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '899.90' });

    // What an API process that died between its commit and the workflow start leaves: the row, no workflow.
    const orphan = `txfr_orphan${Date.now()}`;
    await getPool().query(
      `INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, status, metadata, workflow_id, estimated_completion)
       SELECT $1, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, 'pending', '{}', 'transfer-' || $1, now()
         FROM transfers WHERE id = $2`,
      [orphan, first],
    );
    expect(await startOrphanedTransferWorkflows({ olderThanSeconds: 0 })).toBe(1);
    expect((await waitForTransfer(t, t.headers, orphan, settled)).status).toBe('completed');
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '799.80', reserved_balance: '0.00' });

    // Starting a finished transfer's workflow again (a late retry, a second sweep) changes nothing.
    await startTransferWorkflow((await getTransfer(first))!, { failOnRefusal: false });
    expect(await startOrphanedTransferWorkflows({ olderThanSeconds: 0 })).toBe(0);
    const client = await getTemporalClient();
    const runs: string[] = [];
    for await (const x of client.workflow.list({ query: `WorkflowId = 'transfer-${first}'` })) runs.push(x.runId);
    expect(runs).toHaveLength(1);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '799.80' });
  });
});
