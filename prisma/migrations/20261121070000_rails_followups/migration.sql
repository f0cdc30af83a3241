-- Inbound pacs.002 status reports name the payment by its end-to-end id.
CREATE INDEX "rail_payments_end_to_end_id_idx" ON "rail_payments" ("end_to_end_id");
