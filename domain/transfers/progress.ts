/**
 * What the transfer workflow reports while it runs (its `progress` query) and returns at the end.
 * Declared in the domain, not in workflows/transfer.ts, so that domain code that queries a running
 * workflow (domain/transfers/workflow.ts) does not import from workflows/: workflows depend on the
 * domain, never the other way round. Types only; safe for the workflow bundle.
 */
export type TransferStep = 'validate' | 'reserve' | 'risk_check' | 'review' | 'post' | 'complete' | 'compensate';

export interface TransferProgress {
  transfer_id: string;
  status: 'running' | 'awaiting_review' | 'completed' | 'failed';
  current_step: TransferStep;
  completed_steps: TransferStep[];
  compensation_executed: boolean;
  failure?: { code: string; reason: string };
}
