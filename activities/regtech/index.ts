/**
 * Regulatory activities. flagOverdueMifidReports: the MiFID II T+1 deadline check the hourly
 * schedule's workflow runs (workflows/mifid-deadline.ts). Idempotent: a flagged report is not
 * flagged again, so a retried or repeated run emits no second violation (domain/regtech/mifid/overdue.ts).
 */
import { flagOverdueReports, type OverdueRun } from '../../domain/regtech/mifid/overdue';

export function createRegtechActivities() {
  return {
    async flagOverdueMifidReports({ atMs }: { atMs: number }): Promise<OverdueRun> {
      return flagOverdueReports(new Date(atMs));
    },
  };
}

export type RegtechActivities = ReturnType<typeof createRegtechActivities>;
