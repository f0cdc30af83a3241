// The bench and the chaos script on a bare machine: a PostgreSQL server (the URL in one of the
// named variables, else an embedded one in a scratch directory) and, for the bench, a NATS server
// (NATS_URL, else an embedded one). Whatever was started here is stopped by stop().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startScratchPostgres } from '../../domain/platform/embedded-postgres';
import { startEmbeddedNats } from '../../domain/platform/nats-server';

export interface LocalServices {
  /** A superuser URL of the server (database `postgres`): the caller creates its own databases. */
  adminDatabaseUrl: string;
  /** Set (and put into process.env.NATS_URL) only when asked for with `nats: true`. */
  natsUrl?: string;
  /** What was started here, for the run's header line. */
  started: string[];
  stop(): Promise<void>;
}

export async function localServices(opts: { databaseUrlFrom: string[]; nats?: boolean; log?: (m: string) => void }): Promise<LocalServices> {
  const log = opts.log ?? (() => undefined);
  const stops: Array<() => Promise<void>> = [];
  const started: string[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    let adminDatabaseUrl = opts.databaseUrlFrom.map((k) => process.env[k]).find(Boolean);
    if (!adminDatabaseUrl) {
      const pg = await startScratchPostgres({ notice: log });
      stops.push(() => pg.stop());
      adminDatabaseUrl = pg.url();
      started.push(`embedded PostgreSQL ${pg.version} on 127.0.0.1:${pg.port}`);
    }
    let natsUrl: string | undefined;
    if (opts.nats) {
      natsUrl = process.env.NATS_URL;
      if (!natsUrl) {
        const dir = mkdtempSync(path.join(tmpdir(), 'bank-nats-'));
        const nats = await startEmbeddedNats({ dataDir: dir, port: 0, monitorPort: 0 });
        stops.push(async () => {
          await nats.stop();
          rmSync(dir, { recursive: true, force: true });
        });
        natsUrl = process.env.NATS_URL = nats.url;
        started.push(`embedded nats-server on ${nats.url}`);
      }
    }
    return { adminDatabaseUrl, natsUrl, started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
