-- Natural-language transaction queries (docs/ai-queries.md): each query asked, how it was
-- understood and its answer, private to the user who asked.
CREATE TABLE "ai_queries" (
  "id"                TEXT PRIMARY KEY,
  "environment"       TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"           TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "kind"              TEXT NOT NULL CHECK ("kind" IN ('transactions', 'question')),
  "query"             TEXT NOT NULL,
  "account_id"        TEXT,
  "interpreter"       TEXT NOT NULL CHECK ("interpreter" IN ('parser', 'model')),
  "confidence"        NUMERIC(4, 2) NOT NULL,
  "interpreted"       JSONB NOT NULL,
  "total_results"     INTEGER NOT NULL,
  "result"            JSONB NOT NULL,
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "ai_queries_user_idx" ON "ai_queries" ("user_id", "environment", "created_at" DESC, "id" DESC);

-- A ledger line's transfer (held for review or not) is found by its entry.
CREATE INDEX "transfers_entry_id_idx" ON "transfers" ("entry_id");
