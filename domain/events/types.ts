/**
 * The shape of an event type's entry in the catalog. Its own file so that the areas that list
 * their events (domain/rails/events.ts, domain/interledger/events.ts) and domain/events/catalog.ts,
 * which gathers them, both depend on it instead of on each other.
 */
export interface EventTypeInfo {
  type: string;
  group: string;
  description: string;
  produced: boolean;
  /** Where the event comes from (module), for those produced. */
  producer?: string;
  /**
   * Written without a user because it concerns everyone in the environment (a governance
   * proposal, a basket rebalance): delivered to every active webhook of that environment that
   * subscribes to the type (or '*'), whoever owns it.
   */
  environmentWide?: boolean;
  /** JSON Schema of the event's `data` payload. */
  data_schema: Record<string, unknown>;
}
