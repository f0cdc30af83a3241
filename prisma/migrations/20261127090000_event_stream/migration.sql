-- Events on NATS JetStream (docs/events.md). The outbox stays the transactional record: each row
-- gets a sequence (the relay publishes in its order) and, once published, the stream sequence of
-- its message. The index the relay reads holds only unpublished rows.
ALTER TABLE "outbox_events" ADD COLUMN "seq" bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE "outbox_events" ADD COLUMN "stream_seq" bigint;
DROP INDEX "outbox_events_published_at_occurred_at_idx";
CREATE INDEX "outbox_events_unpublished_seq_idx" ON "outbox_events" ("seq") WHERE "published_at" IS NULL;

-- One row per event a consumer processed, written in the transaction that processed it: a
-- redelivered or duplicated event is skipped (exactly-once effects over at-least-once delivery).
CREATE TABLE "event_receipts" (
  "consumer" text NOT NULL,
  "event_id" text NOT NULL,
  "stream_seq" bigint NOT NULL,
  "processed_at" timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT "event_receipts_pkey" PRIMARY KEY ("consumer", "event_id")
);
CREATE INDEX "event_receipts_processed_at_idx" ON "event_receipts" ("processed_at");

-- The dashboard projector's read model: events per 10-second bucket and type, with the
-- commit-to-stream latency (sum, maximum, histogram over domain/events/projector.ts's bounds).
CREATE TABLE "event_throughput" (
  "bucket" timestamptz(3) NOT NULL,
  "type" text NOT NULL,
  "events" integer NOT NULL,
  "latency_ms_sum" double precision NOT NULL,
  "latency_ms_max" double precision NOT NULL,
  "latency_histogram" integer[] NOT NULL,
  CONSTRAINT "event_throughput_pkey" PRIMARY KEY ("bucket", "type")
);
