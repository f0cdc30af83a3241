// Yardsticks for the workflow benchmark. noopTransferShape: the shape transfers had before the
// single-activity patch (four activities in a row,
// started with the same search attributes and upserting the status twice, as transferWorkflow
// does) with activities that do nothing, so its rate is what the Temporal server and SDK allow on
// this machine.
import { patched, proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { SA } from '../../domain/temporal/search-attributes';

const { noop } = proxyActivities<{ noop(step: string): Promise<void> }>({ startToCloseTimeout: '30 seconds' });
const local = proxyLocalActivities<{ noop(step: string): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

export async function noopTransferShape(): Promise<void> {
  await noop('validate');
  await noop('reserve');
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'reserved' }] as never);
  await noop('risk_check');
  await noop('post');
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'completed' }] as never);
}

// The same for the transfer's shape since SINGLE_ACTIVITY_PATCH: the patch marker, one activity, one
// status upsert.
export async function noopTransferSingleActivity(): Promise<void> {
  patched('transfer-single-activity');
  await noop('run');
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'completed' }] as never);
}

// The transfer's current shape (workflows/transfer.ts since LOCAL_ACTIVITY_PATCH): the patch marker,
// one local activity, one status upsert: one workflow task.
export async function noopTransferLocalActivity(): Promise<void> {
  patched('transfer-local-activity');
  await local.noop('run');
  upsertSearchAttributes([{ key: SA.businessStatus, value: 'completed' }] as never);
}
