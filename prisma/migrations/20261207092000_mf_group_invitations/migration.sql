-- Joint liability only with consent: a group's creator invites members, and each becomes liable for
-- the others' arrears only by accepting (choosing then the account their loans use). Invited members
-- have no account yet; declined ones stay listed as declined and are never drawn on. A group is
-- activated only when no invitation is open. Rows made before this migration were created under the
-- old rule and are kept as accepted.
ALTER TABLE "mf_group_members"
  ADD COLUMN "status" TEXT NOT NULL DEFAULT 'accepted' CHECK ("status" IN ('invited', 'accepted', 'declined')),
  ADD COLUMN "responded_at" TIMESTAMPTZ(3);
ALTER TABLE "mf_group_members" ALTER COLUMN "account_id" DROP NOT NULL;
ALTER TABLE "mf_group_members" ADD CONSTRAINT "mf_group_members_accepted_account" CHECK ("status" <> 'accepted' OR "account_id" IS NOT NULL);
