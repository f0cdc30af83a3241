-- requires-step: seal-webhook-secrets
--
-- The readable webhook secret column goes (docs/webhooks.md "Secrets at rest"). Rows written before
-- sealing (20261126170000_webhook_secrets_sealed) were sealed by a start-up step, but a database
-- whose instances never started on that code may still hold readable secrets, and SQL cannot
-- encrypt: the step above (domain/db/migration-steps.ts -> sealReadableWebhookSecrets) seals them
-- first, in this migration's transaction and on its client. What follows refuses anyway if one is
-- left (belt and braces: dropping it would lose the endpoint's secret for good), e.g. when a tool
-- that knows no steps (`prisma migrate deploy`) applies this file.
DO $$
DECLARE
  n INTEGER;
BEGIN
  SELECT count(*) INTO n FROM "webhooks" WHERE "secret" IS NOT NULL;
  IF n > 0 THEN
    RAISE EXCEPTION '% webhook(s) still hold a readable secret: refusing to drop webhooks.secret', n;
  END IF;
END $$;

-- Every row now holds its secret sealed; the check allowing either column goes with the column.
ALTER TABLE "webhooks"
  DROP CONSTRAINT "webhooks_secret_present",
  DROP COLUMN "secret",
  ALTER COLUMN "secret_sealed" SET NOT NULL;
