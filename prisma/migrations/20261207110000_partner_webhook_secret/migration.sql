-- The webhook secret shown once at partner onboarding (spec, Authentication rule 6), kept sealed
-- (domain/platform/secret-box.ts, bound to the partner id) so that it signs the partner's webhooks
-- whenever a URL is set, at onboarding or later (domain/partner/webhook-secret.ts). Partners
-- onboarded before have none: their webhooks keep a secret of their own, as before.
ALTER TABLE "partners" ADD COLUMN "webhook_secret_sealed" TEXT;
