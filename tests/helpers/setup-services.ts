// Registered first in vitest.config.ts (setupFiles): every test file talks to the run's own NATS
// (tests/helpers/global-setup.ts: embedded unless NATS_URL is set), never a default address.
import { inject } from 'vitest';

process.env.NATS_URL = inject('natsUrl');
