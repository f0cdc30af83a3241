/**
 * Transfers: records and events (records.ts), the checks before money moves (checks.ts), fees
 * (fees.ts), ledger lines (lines.ts), immediate transfers and their group commit (immediate.ts,
 * group-commit.ts), and the per-database TransferService that owns the state of all of these
 * (service.ts). Starting, visibility, risk and the workflow's client live beside them.
 */
export {
  TransferError,
  transferWorkflowId,
  emitTransferEvents,
  getTransfer,
  lockTransfer,
  updateTransfer,
  listAccountTransfers,
  type Transfer,
  type TransferStatus,
} from './records';
export type { CreateTransferInput } from './checks';
export { feeFor, type FeeRow } from './fees';
export type { ImmediateItem, ImmediateResult, PreparedImmediateTransfer } from './immediate';
export { createTransferService, type TransferService, type TransferServiceDeps } from './service';
export type { Entry } from '../ledger';
