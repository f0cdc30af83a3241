import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, whichever entry point (tsx, vitest, worker bundle) loaded us. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n)) throw new Error(`Setting ${name} must be an integer, got "${raw}"`);
  return n;
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

function list(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Every setting the platform reads, in one place (the README lists them).
 * Read lazily so tests and the start script can set the environment first.
 */
export function loadConfig() {
  return {
    port: int('PORT', 8080),
    host: process.env.HOST ?? '0.0.0.0',
    publicUrl: process.env.PUBLIC_URL ?? '',
    databaseUrl: process.env.DATABASE_URL ?? '',
    dbPoolMax: int('DB_POOL_MAX', 20),
    transferBatchMax: int('TRANSFER_BATCH_MAX', 32),
    transferBatchesInFlight: int('TRANSFER_BATCHES_IN_FLIGHT', 2),
    temporalAddress: process.env.TEMPORAL_ADDRESS ?? '',
    temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'banking',
    redisUrl: process.env.REDIS_URL ?? '',
    jwtSecret: process.env.JWT_SECRET ?? '',
    accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 900),
    refreshTokenTtlSeconds: int('REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 100),
    rateLimitPerHour: int('RATE_LIMIT_PER_HOUR', 1000),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024),
    trustProxy: bool('TRUST_PROXY', false),
    logLevel: process.env.LOG_LEVEL ?? 'info',
    loginMaxFailures: int('LOGIN_MAX_FAILURES', 5),
    loginBackoffBaseSeconds: int('LOGIN_BACKOFF_BASE_SECONDS', 30),
    loginLockSeconds: int('LOGIN_LOCK_SECONDS', 900),
    loginMaxFailuresPerAddress: int('LOGIN_MAX_FAILURES_PER_ADDRESS', 100),
    loginFailureWindowSeconds: int('LOGIN_FAILURE_WINDOW_SECONDS', 24 * 3600),
    apiKeysMaxPerUser: int('API_KEYS_MAX_PER_USER', 20),
    operatorBootstrapTtlSeconds: int('OPERATOR_BOOTSTRAP_TTL_SECONDS', 24 * 3600),
    dataDir: process.env.DATA_DIR ?? path.join(REPO_ROOT, '.data'),
    // Whether this worker creates and repairs the ACH file schedules at start. The schedules are one
    // set per namespace pointing at one task queue: with several worker pools on different queues,
    // only the pool that should build the files manages them (the others would flip their queue).
    manageAchSchedules: bool('ACH_SCHEDULES_MANAGED', true),
    // Production chain adapter (domain/chains/production.ts): "ethereum=https://...,polygon=https://..."
    chainRpcUrls: process.env.CHAIN_RPC_URLS ?? '',
    chainSignerPrivateKey: process.env.CHAIN_SIGNER_PRIVATE_KEY ?? '',
    // How long after an internal transfer was posted its recipient may still return it (POST /api/transactions/reverse); operators have no window.
    reversalWindowDays: int('REVERSAL_WINDOW_DAYS', 90),
  };
}

export type Config = ReturnType<typeof loadConfig>;
