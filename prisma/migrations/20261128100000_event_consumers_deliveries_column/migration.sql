-- event_consumers.deliveries_created counted webhook deliveries made by the outbox dispatcher's scan.
-- Since the event stream (20261127090000) the dispatcher row is the relay's heartbeat and deliveries
-- are made by the webhook-dispatcher stream consumer (figures from the broker, docs/events.md): the
-- column was written as 0 and read by nothing.
ALTER TABLE "event_consumers" DROP COLUMN "deliveries_created";
