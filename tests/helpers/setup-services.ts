// Registered first in vitest.config.ts (setupFiles), so it runs before every test file.
// - Every test file talks to the run's own NATS (tests/helpers/global-setup.ts: embedded unless
//   NATS_URL is set), never a default address.
// - Test files share a worker process (`isolate: false`, vitest.config.ts): a setting one file puts
//   in process.env is taken back after it, so the next file starts from the same environment. Its
//   afterAll is the first registered, so it runs last (after hooks run in reverse order), after the
//   file's own clean-up and the money-invariant check.
import { afterAll, inject } from 'vitest';

const before = { ...process.env };
process.env.NATS_URL = inject('natsUrl');

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in before)) delete process.env[k];
  for (const [k, v] of Object.entries(before)) if (process.env[k] !== v) process.env[k] = v;
});
