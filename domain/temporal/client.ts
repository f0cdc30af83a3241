import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../platform/config';
import { ALL_SEARCH_ATTRIBUTES } from './search-attributes';

let connection: Promise<Connection> | undefined;
let client: Client | undefined;

export function temporalAddress(): string {
  return loadConfig().temporalAddress || '127.0.0.1:7233';
}

export async function getTemporalConnection(): Promise<Connection> {
  if (!connection) {
    connection = Connection.connect({ address: temporalAddress(), connectTimeout: '3s' });
    connection.catch(() => {
      connection = undefined; // retry on next use
    });
  }
  return connection;
}

export async function getTemporalClient(): Promise<Client> {
  if (!client) {
    const conn = await getTemporalConnection();
    client = new Client({ connection: conn, namespace: loadConfig().temporalNamespace });
  }
  return client;
}

export async function closeTemporal(): Promise<void> {
  const c = connection;
  connection = undefined;
  client = undefined;
  if (c) await (await c).close().catch(() => undefined);
}

/** Reachability for /api/ready. */
export async function pingTemporal(timeoutMs = 2000): Promise<void> {
  const conn = await getTemporalConnection();
  await conn.withDeadline(Date.now() + timeoutMs, () => conn.workflowService.getSystemInfo({}));
}

const TYPE_NAMES: Record<string, number> = {
  TEXT: 1,
  KEYWORD: 2,
  INT: 3,
  DOUBLE: 4,
  BOOL: 5,
  DATETIME: 6,
  KEYWORD_LIST: 7,
};

/** Registers the platform's search attributes; already-registered ones are fine. */
export async function ensureSearchAttributes(conn: Connection, namespace: string): Promise<void> {
  const existing = await conn.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = ALL_SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (missing.length === 0) return;
  try {
    await conn.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, TYPE_NAMES[k.type.toUpperCase()] ?? 2])),
    });
  } catch (err) {
    // gRPC ALREADY_EXISTS: another process registered them first.
    if ((err as { code?: number }).code !== 6) throw err;
  }
}
