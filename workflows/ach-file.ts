import { proxyActivities } from '@temporalio/workflow';
import type { RailActivities } from '../activities/rails';

const { buildScheduledAchFiles } = proxyActivities<RailActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 10 },
});

/** Run by the ACH schedules before each cut-off: one file per environment with pending entries, transmitted. */
export async function achFileWorkflow(input: { window: string }): Promise<Array<{ environment: string; file_id: string | null }>> {
  return buildScheduledAchFiles({ window: input.window, nowMs: Date.now() });
}
