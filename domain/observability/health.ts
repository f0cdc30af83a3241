import type { Snapshot } from './index';

export type DomainHealth = 'healthy' | 'degraded' | 'down';

/**
 * The health of one event domain in a snapshot: down without the database (the event store);
 * degraded while events wait and the outbox dispatcher is not running, or when at least half of
 * the last hour's delivery attempts failed; healthy otherwise.
 */
export function domainHealth(s: Snapshot, d: Snapshot['domains'][number]): DomainHealth {
  if (!s.database.connected) return 'down';
  const dispatcher = s.consumers.find((c) => c.kind === 'outbox_relay');
  if (d.events_pending > 0 && dispatcher?.state !== 'running') return 'degraded';
  if (d.delivery_errors_last_hour > 0 && d.delivery_errors_last_hour >= d.delivery_attempts_last_hour / 2) return 'degraded';
  return 'healthy';
}
