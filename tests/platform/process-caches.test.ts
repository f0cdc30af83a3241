// Caches of what the process's database holds are dropped with its pool: the next pool may be
// another database (each test file's own, since files share a worker process; or a process
// pointed elsewhere). A maintenance window or a paid route cached from one database must not close
// another's writes or make its reads answer 402 (seen: an open-banking test's read of account
// transactions got the x402 test's price, cached for 5 s, when both ran in one worker).
import { afterAll, describe, expect, it } from 'vitest';
import { registerUser } from '../../domain/auth/users';
import { closePool, getPool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { activeMaintenance } from '../../domain/platform/maintenance-windows';
import { monetizedEndpoint, registerEndpoint } from '../../domain/x402/endpoints';
import { useTestDatabase } from '../helpers/db';

afterAll(async () => {
  await closePrisma();
  await closePool();
});

describe('caches follow the database', () => {
  it('an active maintenance window read from one database is not served for the next', async () => {
    await useTestDatabase();
    const user = await registerUser('Operator', `ops.${Date.now()}@example.test`, 'correct horse battery staple');
    await getPool().query(
      `INSERT INTO maintenance_windows (id, environment, starts_at, ends_at, message, created_by)
       VALUES ('mw_cache_test', 'sandbox', now() - interval '1 minute', now() + interval '1 hour', 'upgrade', $1)`,
      [user!.id],
    );
    expect((await activeMaintenance('sandbox'))?.id).toBe('mw_cache_test');

    await useTestDatabase(); // closes the pool, points DATABASE_URL at a fresh database
    expect(await activeMaintenance('sandbox')).toBeNull();
  });

  it('a paid route read from one database is not priced for the next', async () => {
    await useTestDatabase();
    const user = await registerUser('Seller', `seller.${Date.now()}@example.test`, 'correct horse battery staple');
    const path = '/api/v2/accounts/:uuid/transactions';
    await registerEndpoint({ userId: user!.id, environment: 'sandbox' }, { path, priceUsdCents: 1, network: 'eip155:84532', asset: 'USDC', description: 'History' }, () => true);
    expect((await monetizedEndpoint('sandbox', path))?.path).toBe(path);

    await useTestDatabase();
    expect(await monetizedEndpoint('sandbox', path)).toBeNull();
  });
});
