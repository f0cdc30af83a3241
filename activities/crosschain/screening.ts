/**
 * Sanctions screening of a bridge's recipient (workflows/bridge-transfer.ts), before anything is
 * sent: crypto delivered outside the platform (any recipient but the account's own custody
 * address) is screened against the OFAC list's digital-currency addresses, exactly; a hit, or no
 * list to screen with, opens a compliance hold (domain/regtech/holds) and the workflow waits,
 * reserved, for an operator's decision. A bridge to the account's own custody address has no one
 * outside to screen.
 */
import { bridgeEventsSeen, deliversOutsidePlatform, lockBridgeTransfer, recordBridgeEvent } from '../../domain/crosschain';
import { withTransaction } from '../../domain/db/pool';
import { holdOf, screenOutgoingParty, type OutgoingScreening } from '../../domain/regtech/holds';

interface BridgeStepInput {
  transferId: string;
  workflowId: string;
}

export function createBridgeScreeningActivities() {
  return {
    /** Screens the recipient (recorded once: screened, and held when it is). */
    async screenBridgeRecipient({ transferId, workflowId }: BridgeStepInput): Promise<OutgoingScreening> {
      return withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, transferId);
        if (!deliversOutsidePlatform(t)) return { held: false, holdId: null, reasonCode: null, matchedName: null, score: 0, listVersion: null };
        const r = await screenOutgoingParty(c, { environment: t.environment, userId: t.userId, subjectKind: 'bridge', subjectId: t.id, workflowId, party: 'recipient', name: t.recipientAddress, byAddress: true });
        // A retried activity whose first run committed finds its hold and its 'screened' row again.
        if ((await bridgeEventsSeen(c, t.id, ['screened'])).size > 0) return r;
        await recordBridgeEvent(c, t, 'screened', {
          recipient_address: t.recipientAddress,
          sanctions_hit: r.held && r.reasonCode === 'SANCTIONS_HIT',
          list_version: r.listVersion,
          ...(r.matchedName ? { matched_name: r.matchedName } : {}),
        });
        if (r.held) await recordBridgeEvent(c, t, 'held', { hold_id: r.holdId!, reason_code: r.reasonCode! });
        return r;
      });
    },

    /** A released hold: the bridge goes on (recorded once). */
    async recordBridgeHoldReleased({ transferId, holdId }: BridgeStepInput & { holdId: string }): Promise<void> {
      await withTransaction(async (c) => {
        const t = await lockBridgeTransfer(c, transferId);
        if ((await bridgeEventsSeen(c, t.id, ['released'])).size > 0) return;
        const h = await holdOf('bridge', t.id, c);
        await recordBridgeEvent(c, t, 'released', { hold_id: holdId, decided_by: h?.decidedBy ?? null });
      });
    },
  };
}
