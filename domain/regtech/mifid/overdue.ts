/**
 * The T+1 deadline check the hourly schedule runs (schedule.ts, workflows/mifid-deadline.ts):
 * every NEWT report past its deadline_at that was not sent (draft, validated) or was rejected,
 * while no other NEWT of the same trade was submitted or accepted, is flagged overdue (overdue,
 * flagged_at) with one compliance.violation.detected (framework mifid_ii, code REPORT_OVERDUE),
 * in the same transaction. A flagged report is never flagged again, so a repeated or concurrent
 * run emits nothing twice.
 */
import { withTransaction } from '../../db/pool';
import { writeOutboxEvents } from '../../events/outbox';

export interface OverdueRun {
  checkedAt: string;
  flagged: Array<{ reportId: string; environment: string; transactionId: string; deadlineAt: string }>;
}

const BATCH = 500;

type Row = { id: string; environment: 'sandbox' | 'production'; user_id: string; transaction_id: string; transaction_kind: string; status: string; deadline_at: Date };

export async function flagOverdueReports(now: Date): Promise<OverdueRun> {
  const flagged: OverdueRun['flagged'] = [];
  for (;;) {
    const rows = await withTransaction(async (c) => {
      const { rows } = await c.query<Row>(
        `WITH due AS (
           SELECT r.id FROM mifid_reports r
            WHERE r.report_type = 'NEWT' AND NOT r.overdue AND r.deadline_at < $1 AND r.status IN ('draft', 'validated', 'rejected')
              AND NOT EXISTS (SELECT 1 FROM mifid_reports o WHERE o.environment = r.environment AND o.transaction_id = r.transaction_id
                                 AND o.report_type = 'NEWT' AND o.status IN ('submitted', 'accepted'))
            ORDER BY r.deadline_at, r.id LIMIT ${BATCH}
            FOR UPDATE SKIP LOCKED)
         UPDATE mifid_reports r SET overdue = true, flagged_at = $1, updated_at = now()
           FROM due WHERE r.id = due.id AND NOT r.overdue
         RETURNING r.id, r.environment, r.user_id, r.transaction_id, r.transaction_kind, r.status, r.deadline_at`,
        [now],
      );
      await writeOutboxEvents(
        c,
        rows.map((r) => ({
          type: 'compliance.violation.detected',
          environment: r.environment,
          userId: r.user_id,
          aggregateType: 'mifid_report',
          aggregateId: r.id,
          data: {
            framework: 'mifid_ii',
            code: 'REPORT_OVERDUE',
            description: `MiFID II report ${r.id} (${r.status}) of ${r.transaction_kind} ${r.transaction_id} was not submitted by its deadline ${r.deadline_at.toISOString()} (T+1 working day, MiFIR Art. 26(1))`,
            detected_at: now.toISOString(),
            report_id: r.id,
            subject_kind: r.transaction_kind,
            subject_id: r.transaction_id,
          },
        })),
      );
      return rows;
    });
    for (const r of rows) flagged.push({ reportId: r.id, environment: r.environment, transactionId: r.transaction_id, deadlineAt: r.deadline_at.toISOString() });
    if (rows.length < BATCH) break;
  }
  return { checkedAt: now.toISOString(), flagged };
}
