-- user_sessions.passkey_id: the passkey a biometric session was started with (null for password
-- sessions). Deleting a passkey revokes every session it started, refresh tokens included
-- (domain/mobile/passkeys.ts), so a removed authenticator stops unlocking passkey-gated payments at
-- once. No foreign key: the passkey row is deleted in the same transaction that revokes its sessions,
-- and the revoked session keeps naming what started it.
ALTER TABLE "user_sessions" ADD COLUMN "passkey_id" TEXT;
CREATE INDEX "user_sessions_passkey_id_idx" ON "user_sessions" ("passkey_id") WHERE "passkey_id" IS NOT NULL;
