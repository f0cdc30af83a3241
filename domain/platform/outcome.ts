/**
 * How a workflow-run operation (transfer, swap, rail or interledger payment, cross-chain swap)
 * stands: its failure, whether its compensation ran, and its timestamps. Every such record carries
 * the same columns; this is their one mapping.
 */
export interface Outcome {
  failureCode: string | null;
  failureReason: string | null;
  compensationExecuted: boolean;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  failedAt: Date | null;
}

export interface OutcomeRow {
  failure_code: string | null;
  failure_reason: string | null;
  compensation_executed: boolean;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
}

export function outcomeOf(r: OutcomeRow): Outcome {
  return {
    failureCode: r.failure_code,
    failureReason: r.failure_reason,
    compensationExecuted: r.compensation_executed,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
    failedAt: r.failed_at,
  };
}
