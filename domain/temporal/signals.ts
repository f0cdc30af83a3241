import { WorkflowNotFoundError } from '@temporalio/common';
import { getTemporalClient } from './client';

/** Signals a workflow; false when it has already ended (a late or repeated message). */
export async function deliverSignal(send: () => Promise<void>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Signals a workflow by id and signal name; false when it has already ended. */
export async function signalWorkflow(workflowId: string, signal: string, ...args: unknown[]): Promise<boolean> {
  const client = await getTemporalClient();
  return deliverSignal(() => client.workflow.getHandle(workflowId).signal(signal, ...args));
}
