/**
 * The payment intent workflow's one activity (workflows/payment-intent.ts): it moves the intent on
 * from wherever it stands, idempotently. processing → the money moves (one ledger entry, keyed by
 * the intent, so a retried activity cannot post twice) and the intent succeeds; or, when the ledger
 * refuses, back to requires_confirmation with last_error. requires_confirmation past expires_at
 * (workflow clock) → expired. Returns the status it leaves.
 */
import { withTransaction } from '../../domain/db/pool';
import { LedgerError, postEntry } from '../../domain/ledger';
import { emitIntentEvent, lockIntent, markIntentExpired, markIntentSucceeded, returnIntentForConfirmation, type IntentStatus } from '../../domain/mobile/intents';
import { DomainError } from '../../domain/platform/errors';
import { getAsset } from '../../domain/assets';
import type { TransferService } from '../../domain/transfers';

export function createMobileActivities(deps: { transfers: TransferService }) {
  return {
    async advancePaymentIntent({ intentId, nowMs }: { intentId: string; nowMs: number }): Promise<IntentStatus> {
      try {
        return await withTransaction(async (c) => {
          const i = await lockIntent(c, intentId);
          if (!i) throw new DomainError('PAYMENT_INTENT_NOT_FOUND', `payment intent ${intentId} not found`);
          if (i.status === 'requires_confirmation' && nowMs >= i.expiresAt.getTime()) {
            const u = await markIntentExpired(c, i.id);
            await emitIntentEvent(c, u, 'payment_intent.expired');
            return u.status;
          }
          if (i.status !== 'processing') return i.status;
          const asset = (await getAsset(i.currency, c))!;
          const fee = await deps.transfers.transferFee(i.currency, i.amount, asset.precision, c);
          const lines = await deps.transfers.buildTransferLines(
            { id: i.id, environment: i.environment, fromAccountId: i.payerAccountId!, toAccountId: i.payeeAccountId!, assetCode: i.currency, amount: i.amount, feeAmount: fee },
            c,
          );
          const entry = await postEntry(
            {
              environment: i.environment,
              idempotencyKey: `payment_intent:${i.id}`,
              type: 'transfer',
              reference: i.id,
              description: i.description ?? `Payment to ${i.payeeName}`,
              lines,
              userId: i.userId,
              metadata: { payment_intent_id: i.id },
            },
            c,
          );
          const u = await markIntentSucceeded(c, i.id, entry.id, fee);
          await emitIntentEvent(c, u, 'payment_intent.completed');
          return u.status;
        });
      } catch (err) {
        // The ledger refused the payment (funds, a frozen or closed account): the payer may try again.
        if (!(err instanceof LedgerError || (err instanceof DomainError && err.code !== 'PAYMENT_INTENT_NOT_FOUND'))) throw err;
        return withTransaction(async (c) => {
          const i = (await lockIntent(c, intentId))!;
          if (i.status !== 'processing') return i.status;
          const u = await returnIntentForConfirmation(c, i.id, err.code, err.message);
          return u.status;
        });
      }
    },
  };
}

export type MobileActivities = ReturnType<typeof createMobileActivities>;
