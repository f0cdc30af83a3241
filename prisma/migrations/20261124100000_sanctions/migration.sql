-- Sanctions lists (issue 16): the official OFAC SDN files loaded into the database, so screening
-- reads one recorded version (its sha256, load time and counts) that operators can reload, and
-- every screening result can name the list version it was made against.

CREATE TABLE "sanctions_lists" (
  "id"          TEXT PRIMARY KEY,
  "source"      TEXT NOT NULL,
  -- sha256 over the list's files as loaded: a new file is a new version.
  "version"     TEXT NOT NULL,
  "entry_count" INTEGER NOT NULL,
  "name_count"  INTEGER NOT NULL,
  "loaded_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "loaded_by"   TEXT
);

CREATE TABLE "sanctions_entries" (
  "list_id"  TEXT NOT NULL REFERENCES "sanctions_lists" ("id"),
  "ent_num"  INTEGER NOT NULL,
  "name"     TEXT NOT NULL,
  -- individual, entity ('-0-' in the file), vessel, aircraft
  "sdn_type" TEXT NOT NULL,
  "programs" TEXT[] NOT NULL,
  "remarks"  TEXT,
  PRIMARY KEY ("list_id", "ent_num")
);

-- Every name an entry goes by: the primary name and its aliases (aka, fka, nka).
CREATE TABLE "sanctions_names" (
  "list_id" TEXT NOT NULL,
  "ent_num" INTEGER NOT NULL,
  -- 0 for the primary name, the file's alt_num for an alias.
  "alt_num" INTEGER NOT NULL,
  "name"    TEXT NOT NULL,
  "kind"    TEXT NOT NULL CHECK ("kind" IN ('primary', 'aka', 'fka', 'nka')),
  PRIMARY KEY ("list_id", "ent_num", "alt_num"),
  FOREIGN KEY ("list_id", "ent_num") REFERENCES "sanctions_entries" ("list_id", "ent_num")
);
