-- Partner banking-as-a-service (docs/partner.md): partners onboarded by operators, their keys,
-- tenants (isolated customer spaces) and white-label configurations.

CREATE TABLE "partners" (
  "id"                    TEXT PRIMARY KEY,
  "organization_name"     TEXT NOT NULL,
  "contact_email"         TEXT NOT NULL,
  "tier"                  TEXT NOT NULL CHECK ("tier" IN ('starter', 'growth', 'enterprise')),
  "status"                TEXT NOT NULL CHECK ("status" IN ('active', 'suspended')),
  "modules"               TEXT[] NOT NULL,
  "sdk_languages"         TEXT[] NOT NULL DEFAULT '{}',
  "ip_whitelist"          TEXT[] NOT NULL DEFAULT '{}',
  "requests_per_minute"   INTEGER NOT NULL CHECK ("requests_per_minute" > 0),
  "burst_limit"           INTEGER NOT NULL CHECK ("burst_limit" > 0),
  "metadata"              JSONB NOT NULL DEFAULT '{}',
  -- The partner's own platform user: its API keys and webhook belong to it.
  "user_id"               TEXT NOT NULL UNIQUE REFERENCES "users" ("id"),
  -- X-Partner-Key (fpk_…): SHA-256 only, shown once.
  "partner_key_hash"      TEXT NOT NULL UNIQUE,
  "partner_key_prefix"    TEXT NOT NULL,
  "webhook_id"            TEXT,
  "compliance_review"     TEXT NOT NULL DEFAULT 'pending' CHECK ("compliance_review" IN ('pending', 'approved', 'rejected')),
  "created_by"            TEXT NOT NULL,
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- Keys issued to a partner carry its id: the modules, allow-list and limits follow from it.
ALTER TABLE "api_keys" ADD COLUMN "partner_id" TEXT REFERENCES "partners" ("id");
ALTER TABLE "api_keys" ADD COLUMN "burst_limit" INTEGER CHECK ("burst_limit" > 0);

CREATE TABLE "partner_tenants" (
  "id"          TEXT PRIMARY KEY,
  "partner_id"  TEXT NOT NULL REFERENCES "partners" ("id"),
  "name"        TEXT NOT NULL,
  "plan"        TEXT NOT NULL CHECK ("plan" IN ('basic', 'standard', 'premium')),
  -- Lower case, unique across the platform.
  "domain"      TEXT NOT NULL,
  "status"      TEXT NOT NULL CHECK ("status" IN ('active', 'suspended')),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "partner_tenants_domain_key" ON "partner_tenants" ("domain");
CREATE INDEX "partner_tenants_partner_id_created_at_idx" ON "partner_tenants" ("partner_id", "created_at" DESC, "id" DESC);

-- A tenant's customers and their accounts carry the tenant: the domain keeps money inside it.
ALTER TABLE "users" ADD COLUMN "tenant_id" TEXT REFERENCES "partner_tenants" ("id");
ALTER TABLE "accounts" ADD COLUMN "tenant_id" TEXT REFERENCES "partner_tenants" ("id");
CREATE INDEX "accounts_tenant_id_idx" ON "accounts" ("tenant_id");

CREATE TABLE "partner_whitelabel_configs" (
  "partner_id"    TEXT NOT NULL REFERENCES "partners" ("id"),
  "version"       INTEGER NOT NULL CHECK ("version" > 0),
  "logo_url"      TEXT NOT NULL,
  "primary_color" TEXT NOT NULL CHECK ("primary_color" ~ '^#[0-9A-F]{6}$'),
  "features"      JSONB NOT NULL,
  "published_by"  TEXT NOT NULL,
  "published_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("partner_id", "version")
);
