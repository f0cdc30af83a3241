-- Webhook signing secrets at rest (docs/webhooks.md "Secrets at rest"; code domain/webhooks/secrets.ts).
--
-- The secret was kept readable because HMAC needs the key itself. It is now sealed with AES-256-GCM
-- under a master key (domain/platform/secret-box.ts: `v1.<keyId>.<iv>.<tag>.<ciphertext>`, the key
-- id inside so master keys can rotate). SQL cannot encrypt, so this migration only makes room:
-- `secret` becomes nullable, and sealPlaintextWebhookSecrets() moves every readable secret into
-- `secret_sealed` and empties `secret` at API and worker start (idempotent). New writes store
-- sealed values only. A later migration can drop `secret` once every instance has started once.
--
-- Rotation grace: the replaced secret stays valid (deliveries carry both signatures) until
-- `previous_secret_expires_at`; both columns are set together or not at all.
ALTER TABLE "webhooks"
  ALTER COLUMN "secret" DROP NOT NULL,
  ADD COLUMN "secret_sealed" TEXT,
  ADD COLUMN "previous_secret_sealed" TEXT,
  ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3),
  ADD CONSTRAINT "webhooks_secret_present" CHECK ("secret" IS NOT NULL OR "secret_sealed" IS NOT NULL),
  ADD CONSTRAINT "webhooks_previous_secret_pair" CHECK (("previous_secret_sealed" IS NULL) = ("previous_secret_expires_at" IS NULL));
