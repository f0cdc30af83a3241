-- Every catalog event produced (issue 25, part B): the state the new producers need to emit each
-- event exactly once.
--
-- transfer.expired: a workflow transfer whose review deadline passed ends 'expired' (its
-- reservation is voided as for a failure), not 'failed'.
ALTER TABLE "transfers" DROP CONSTRAINT "transfers_status_check";
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_status_check"
  CHECK ("status" IN ('pending', 'pending_review', 'completed', 'failed', 'reversed', 'expired'));

-- system.security_alert (new IP range): the address ranges (/24 IPv4, /48 IPv6) each API key has
-- been used from. A key's first range is not an alert; a later unseen one is.
CREATE TABLE "api_key_ip_ranges" (
  "api_key_id"    TEXT NOT NULL REFERENCES "api_keys" ("id") ON DELETE CASCADE,
  "ip_range"      TEXT NOT NULL,
  "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("api_key_id", "ip_range")
);

-- system.rate_limit_warning: one row per credential and rate-limit window that crossed 80 %, so
-- the warning is written once per window even with several API processes.
CREATE TABLE "rate_limit_warnings" (
  "credential_id"  TEXT NOT NULL,
  "window_seconds" INTEGER NOT NULL,
  "window_start"   TIMESTAMPTZ(3) NOT NULL,
  "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("credential_id", "window_seconds", "window_start")
);

-- system.api_key_expiring: a key is announced once (the daily run skips keys listed here).
CREATE TABLE "api_key_expiry_notices" (
  "api_key_id"  TEXT PRIMARY KEY REFERENCES "api_keys" ("id") ON DELETE CASCADE,
  "expires_at"  TIMESTAMPTZ(3) NOT NULL,
  "notified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- system.maintenance_start / _end: operator-scheduled maintenance windows (environment-wide).
-- started_at / ended_at record that the window's workflow emitted its events.
CREATE TABLE "maintenance_windows" (
  "id"           TEXT PRIMARY KEY,
  "environment"  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "starts_at"    TIMESTAMPTZ(3) NOT NULL,
  "ends_at"      TIMESTAMPTZ(3) NOT NULL,
  "message"      TEXT NOT NULL,
  "created_by"   TEXT NOT NULL REFERENCES "users" ("id"),
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "cancelled_at" TIMESTAMPTZ(3),
  "started_at"   TIMESTAMPTZ(3),
  "ended_at"     TIMESTAMPTZ(3),
  CONSTRAINT "maintenance_windows_order" CHECK ("ends_at" > "starts_at")
);
CREATE INDEX "maintenance_windows_environment_idx" ON "maintenance_windows" ("environment", "ends_at");

-- system.status_change (readiness): the last observed status of each readiness component, so a
-- change is announced once whichever process observes it.
CREATE TABLE "readiness_status" (
  "component"  TEXT PRIMARY KEY,
  "status"     TEXT NOT NULL CHECK ("status" IN ('ok', 'unavailable')),
  "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
