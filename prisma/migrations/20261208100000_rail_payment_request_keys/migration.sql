-- The request's Idempotency-Key recorded with the rail payment it made, in the payment's own
-- transaction (as 20261127110000_operation_request_keys does for transfers and swaps): a request
-- whose process died after the commit and before its answer was stored is run again once its key's
-- lock goes stale, and the re-run answers with that payment (and starts its workflow if the first
-- run died before starting it) instead of creating a second one.
ALTER TABLE "rail_payments" ADD COLUMN "request_key" TEXT;
CREATE UNIQUE INDEX "rail_payments_request_key_key" ON "rail_payments" ("request_key") WHERE "request_key" IS NOT NULL;
