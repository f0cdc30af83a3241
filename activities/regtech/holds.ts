/**
 * Activities every held payment's workflow shares (workflows/compliance-hold.ts): where its
 * compliance hold stands, and expiring it when the review window closes. The screening that opens
 * a hold belongs to each payment's own activities (it records that payment's history).
 */
import { expireHold, holdDecision, type HoldStatus } from '../../domain/regtech/holds';

export function createHoldActivities() {
  return {
    /** The hold's status (the workflow polls it besides the decision signal). */
    async complianceHoldStatus({ holdId }: { holdId: string }): Promise<HoldStatus> {
      return holdDecision(holdId);
    },

    /** The review window closed: an open hold expires; a decision made meanwhile stands. */
    async expireComplianceHold({ holdId }: { holdId: string }): Promise<HoldStatus> {
      return expireHold(holdId);
    },
  };
}

export type HoldActivities = ReturnType<typeof createHoldActivities>;
