-- A production payment whose /settle call gave no answer (a timeout, a dropped connection, a 5xx)
-- stays 'settling': the facilitator may have submitted it. What is known is recorded, and the
-- reconciliation (domain/x402/reconcile.ts, every 5 minutes) asks the chain whether its EIP-3009
-- authorization was used (docs/payments-402.md, "Stuck settlements").
ALTER TABLE "x402_payments"
  -- When the facilitator's /settle was called (null: never reached, e.g. the process stopped first).
  ADD COLUMN "settle_attempted_at" TIMESTAMPTZ(3),
  -- Why the payment is still settling: the lost answer, or what reconciliation last could not do.
  ADD COLUMN "last_error" TEXT,
  -- When reconciliation last asked the chain about it.
  ADD COLUMN "reconciled_at" TIMESTAMPTZ(3);

-- Reconciliation's scan: the few payments still settling, oldest first.
CREATE INDEX "x402_payments_settling_idx" ON "x402_payments" ("created_at") WHERE "status" = 'settling';
