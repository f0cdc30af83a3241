-- Fewer index entries per transfer (issue 24 "Faster synchronous transfers"): a transfer with a fee
-- wrote 41, each a page search, a WAL record and, after a checkpoint, often a full page image.
--
-- - ledger_lines (seq): a unique index on a column only its own sequence fills (nextval, when a line
--   is written or a pending line posted) checked what the sequence guarantees, on every line; no
--   query looks lines up by seq alone (pages order by seq within an account or user: other indexes).
-- - transfers (status): every transfer was indexed by a status nobody asks for once final; the
--   queries that use it look for open ones (orphaned pending transfers, transfers held for review).
-- - transfers (to_account_id, user_id) and (to_account_id, created_at DESC) become one index,
--   (to_account_id, created_at DESC) INCLUDE (user_id): the mobile activity's "received from others"
--   page walks it by date and its count filters user_id from the index alone.
DROP INDEX ledger_lines_seq_key;

DROP INDEX transfers_status_idx;
CREATE INDEX transfers_open_status_idx ON transfers (status) WHERE status IN ('pending', 'pending_review');

DROP INDEX transfers_to_account_id_user_id_idx;
DROP INDEX transfers_to_account_id_created_at_idx;
CREATE INDEX transfers_to_account_id_created_at_idx ON transfers (to_account_id, created_at DESC) INCLUDE (user_id);
