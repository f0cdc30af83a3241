import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tests/helpers/sequencer';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql ships CommonJS (main) and ESM (module) builds; Node loads the CommonJS one for the
    // app and for mercurius, but Vite prefers `module` for our sources: two copies of graphql, and a
    // schema built by one is "from another realm" for the other. Tests load what production loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/helpers/global-setup.ts'],
    // After every test file: the money invariants of its database (tests/helpers/money-invariants.ts).
    setupFiles: ['tests/helpers/setup-services.ts', 'tests/helpers/setup-invariants.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A pooled connection asked for while the same async context holds one fails the test
    // (domain/db/pool.ts): that pattern deadlocks once the pool is exhausted.
    env: { DB_NESTED_ACQUIRE: 'throw' },
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 3,
    // Files share their worker's module graph: the app is imported once per worker instead of once
    // per file (import time summed over files: 453 s isolated, 25 s shared; docs/testing.md). What
    // a file leaves behind is taken back: its process.env (tests/helpers/setup-services.ts), its
    // pool, Prisma client and event stream (closed when the next file takes its own database).
    isolate: false,
    // The slowest files start first, also on a fresh clone with no timing cache.
    sequence: { sequencer: SlowFirstSequencer },
  },
});
