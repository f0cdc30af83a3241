import { ApplicationFailure } from '@temporalio/activity';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { withTransaction } from '../../domain/db/pool';
import { emitIlpEvent, getQuote, lockIlpPayment, openPaymentsAmount, updateIlpPayment } from '../../domain/interledger';
import { connectorAdapter, IlpNotConfigured } from '../../domain/interledger/stream';
import { getEntry, internalLedgerAccountId, LedgerError, postEntry, postPending, systemAccount, voidPending, workflowIdempotencyKey, type LineInput } from '../../domain/ledger';
import { DecimalMoney, isZeroAmount } from '../../domain/money/amount';
import { holdOf, screenOutgoingParty, type OutgoingScreening } from '../../domain/regtech/holds';
import { loadConfig } from '../../domain/platform/config';
import { businessFailure } from '../failures';

export interface IlpStepInput {
  paymentId: string;
  workflowId: string;
}

export function createInterledgerActivities() {
  return {
    /** The quote must still be valid at the workflow's clock (a late start cannot pay a stale price). */
    async checkIlpQuote({ paymentId, nowMs }: IlpStepInput & { nowMs: number }): Promise<void> {
      const p = await withTransaction((c) => lockIlpPayment(c, paymentId));
      const q = (await getQuote(p.quoteId))!;
      if (q.expiresAt.getTime() <= nowMs) throw ApplicationFailure.nonRetryable(`quote expired at ${q.expiresAt.toISOString()}`, 'QUOTE_EXPIRED');
    },

    /** Pending entry: customer pays send amount; connector liquidity gets amount minus fee, fee revenue the fee. */
    async reserveIlpPayment({ paymentId, workflowId }: IlpStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockIlpPayment(c, paymentId);
        if (p.entryId) return;
        const q = (await getQuote(p.quoteId, c))!;
        const customer = await ensureCustomerLedgerAccount(p.accountId, q.sendCurrency, c);
        const connector = await internalLedgerAccountId(
          { environment: p.environment, assetCode: q.sendCurrency, code: 'ilp_connector', name: `Interledger connector ${q.sendCurrency}`, normalBalance: 'debit' },
          c,
        );
        const net = new DecimalMoney(q.sendAmount).minus(q.feeAmount).toFixed(q.sendScale);
        const lines: LineInput[] = [
          { accountId: customer, direction: 'debit', amount: q.sendAmount, transactionType: 'transfer_out' },
          { accountId: connector, direction: 'credit', amount: net },
        ];
        if (!isZeroAmount(q.feeAmount)) {
          lines.push({ accountId: await systemAccount(p.environment, q.sendCurrency, 'fee_revenue', p.id, c), direction: 'credit', amount: q.feeAmount });
        }
        const entry = await postEntry(
          {
            environment: p.environment,
            idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
            type: 'transfer',
            description: `Interledger payment to ${q.receiver}`,
            lines,
            pending: true,
            // Outlives a compliance review of the payment (held up to COMPLIANCE_REVIEW_TIMEOUT_HOURS) plus an hour to send.
            pendingTimeoutSeconds: loadConfig().complianceReviewTimeoutHours * 3600 + 3600,
            userId: p.userId,
            metadata: { ilp_payment_id: p.id, quote_id: q.id },
          },
          c,
        ).catch(businessFailure);
        const u = await updateIlpPayment(c, p.id, { status: 'reserved', entry_id: entry.id });
        await emitIlpEvent(c, u, 'interledger.payment_reserved', { entry_id: entry.id });
      });
    },

    /**
     * Screens the receiver's published name against the loaded sanctions list; a hit holds the
     * payment for review (domain/regtech/holds). A receiver that publishes no name has nothing to
     * screen (recorded as such).
     */
    async screenIlpPayment({ paymentId, workflowId }: IlpStepInput): Promise<OutgoingScreening> {
      const p = await withTransaction((c) => lockIlpPayment(c, paymentId));
      const q = (await getQuote(p.quoteId))!;
      const name = await connectorAdapter(p.environment).receiverName(q.walletAddress).catch((err) => {
        if (err instanceof IlpNotConfigured) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      });
      return withTransaction(async (c) => {
        const locked = await lockIlpPayment(c, paymentId);
        const before = await holdOf('ilp_payment', locked.id, c);
        if (!name) {
          await emitIlpEvent(c, locked, 'interledger.payment_screened', { receiver_name: null, sanctions_hit: false, score: 0, list_version: null });
          return { held: false, holdId: null, reasonCode: null, matchedName: null, score: 0, listVersion: null };
        }
        const r = await screenOutgoingParty(c, { environment: locked.environment, userId: locked.userId, subjectKind: 'ilp_payment', subjectId: locked.id, workflowId, party: 'receiver', name });
        if (before) return r;
        await emitIlpEvent(c, locked, 'interledger.payment_screened', { receiver_name: name, sanctions_hit: r.held, score: r.score, list_version: r.listVersion });
        if (r.held) await emitIlpEvent(c, locked, 'interledger.payment_held', { hold_id: r.holdId!, reason_code: r.reasonCode! });
        return r;
      });
    },

    /** A released hold: the payment is sent. */
    async recordIlpHoldReleased({ paymentId, holdId }: IlpStepInput & { holdId: string }): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockIlpPayment(c, paymentId);
        const h = await holdOf('ilp_payment', p.id, c);
        await emitIlpEvent(c, p, 'interledger.payment_released', { hold_id: holdId, decided_by: h?.decidedBy ?? null });
      });
    },

    /** Sends the ILP Prepare through the connector and records the packets exchanged. */
    async sendIlpPayment({ paymentId, nowMs }: IlpStepInput & { nowMs: number }): Promise<{ fulfilled: boolean; code: string | null; message: string | null }> {
      const p = await withTransaction((c) => lockIlpPayment(c, paymentId));
      if (p.fulfillment) return { fulfilled: true, code: null, message: null };
      const q = (await getQuote(p.quoteId))!;
      const amount = openPaymentsAmount(new DecimalMoney(q.sendAmount).minus(q.feeAmount).toFixed(), q.sendCurrency, q.sendScale).value;
      const data = Buffer.from(JSON.stringify({ payment_id: p.id, receive: openPaymentsAmount(q.receiveAmount, q.receiveCurrency, q.receiveScale) }));
      const r = await connectorAdapter(p.environment).send({ walletAddress: q.walletAddress, amount, data, nowMs }).catch((err) => {
        if (err instanceof IlpNotConfigured) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      });
      await withTransaction(async (c) => {
        const u = await updateIlpPayment(c, p.id, {
          destination: r.destination,
          execution_condition: r.condition,
          fulfillment: r.fulfillment,
          ilp_reject_code: r.rejectCode,
          packets: r.packets,
        });
        await emitIlpEvent(c, u, r.fulfilled ? 'interledger.packet_fulfilled' : 'interledger.packet_rejected', { code: r.rejectCode });
      });
      return { fulfilled: r.fulfilled, code: r.rejectCode, message: r.rejectMessage };
    },

    async postIlpPayment({ paymentId, workflowId }: IlpStepInput): Promise<void> {
      await withTransaction(async (c) => {
        const p = await lockIlpPayment(c, paymentId);
        if (p.status === 'completed') return;
        await postPending(p.entryId!, { idempotencyKey: workflowIdempotencyKey(workflowId, 'post') }, c).catch(businessFailure);
        const u = await updateIlpPayment(c, p.id, { status: 'completed', completed_at: 'now' });
        await emitIlpEvent(c, u, 'interledger.payment_completed');
      });
    },

    async compensateIlpPayment({ paymentId, workflowId, code, reason }: IlpStepInput & { code: string; reason: string }): Promise<{ voided: boolean }> {
      return withTransaction(async (c) => {
        const p = await lockIlpPayment(c, paymentId);
        if (p.status === 'failed') return { voided: p.compensationExecuted };
        let voided = false;
        if (p.entryId) {
          const e = await getEntry(p.entryId, c);
          if (e?.status === 'pending') {
            await voidPending(p.entryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'void'), reason: `${code}: ${reason}` }, c).catch((err) => {
              if (!(err instanceof LedgerError && err.code === 'ALREADY_VOIDED')) throw err;
            });
            voided = true;
          } else if (e?.status === 'voided') voided = true;
        }
        const u = await updateIlpPayment(c, p.id, { status: 'failed', failure_code: code, failure_reason: reason, compensation_executed: voided, failed_at: 'now' });
        await emitIlpEvent(c, u, 'interledger.payment_failed', { code, reason });
        // interledger.*, not workflow.compensation_executed: that type's payload is a transfer's.
        if (voided) await emitIlpEvent(c, u, 'interledger.compensation_executed', { action: 'void' });
        return { voided };
      });
    },
  };
}

export type InterledgerActivities = ReturnType<typeof createInterledgerActivities>;
