-- The relay's read (domain/events/relay.ts): an outbox row's derived events with their data
-- (outbox__event_data), in order.
CREATE OR REPLACE FUNCTION outbox__derived(p_row outbox_events) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object('id', d.e->>'id', 'type', d.e->>'type', 'user_id', d.e->>'user_id', 'aggregate_type', d.e->>'aggregate_type',
                                      'aggregate_id', d.e->>'aggregate_id', 'data', outbox__event_data(d.e, p_row.data)) ORDER BY d.k)
    FROM outbox__derived_refs(p_row.id, p_row.user_id, p_row.aggregate_id, p_row.derived) d
$$;
