// Yardstick for the workflow benchmark: the same shape as a transfer (five activities in a row)
// doing nothing, so its rate is what the Temporal server and SDK allow on this machine.
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(step: string): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function noopTransferShape(): Promise<void> {
  for (const step of ['validate', 'reserve', 'risk_check', 'post']) await noop(step);
}
