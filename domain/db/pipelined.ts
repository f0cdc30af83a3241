import type pg from 'pg';
import { connectionSurvives } from './pool';

interface Session {
  client: Promise<pg.PoolClient>;
  users: number;
  /** The error that killed the connection, once one did: it is dropped instead of returned. */
  lost?: Error;
}

/**
 * One connection of the pool shared by concurrent statements in pipeline mode: each statement is
 * sent at once, without waiting for the one before it to finish, and the server runs them in the
 * order they were sent. A statement sent while another runs starts the moment that one commits,
 * instead of a network round trip and the client's event loop later.
 *
 * The connection is held only while statements are outstanding; it goes back to the pool (out of
 * pipeline mode) when the last one answers. A statement error affects only its own statement
 * (every statement ends with its own Sync); a lost connection fails the statements on it, and the
 * next statement takes a new connection.
 */
export class PipelinedConnection {
  private session: Session | null = null;

  constructor(private readonly pool: pg.Pool) {}

  async query<T extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<T>> {
    const s = (this.session ??= { client: this.connect(), users: 0 });
    s.users++;
    try {
      const client = await s.client;
      return await client.query<T>(config);
    } catch (err) {
      if (!connectionSurvives(err) && !s.lost) {
        s.lost = err instanceof Error ? err : new Error(String(err));
        if (this.session === s) this.session = null;
      }
      throw err;
    } finally {
      if (--s.users === 0) {
        if (this.session === s) this.session = null;
        void s.client.then(
          (client) => {
            setPipeline(client, false);
            client.release(s.lost);
          },
          () => undefined,
        );
      }
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    setPipeline(client, true);
    return client;
  }
}

/**
 * pg's Client reads `pipeline` at each send (its typings call it read-only: set at construction).
 * Switched only while nothing is outstanding on the connection: just checked out, or every
 * statement answered before it goes back to the pool.
 */
function setPipeline(client: pg.PoolClient, on: boolean): void {
  (client as { pipeline: boolean }).pipeline = on;
}
