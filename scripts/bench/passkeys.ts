// Passkey verification throughput (target ≥ 1,000 verifications/s): the domain verify path with
// its database work (credential and challenge lookup, @simplewebauthn/server's checks and ES256
// signature verification, then the challenge spent and the counter moved in one statement), on
// many credentials registered through the real registration path, at concurrency like the other
// benches. Assertions come from the software authenticator of the tests (real P-256 keys and
// signatures), signed before the clock starts; each worker owns its credentials so every counter
// advances in order. A second run adds the login session (signInWithPasskey: session row + JWT).
// Uses its own throw-away database. Run: npm run bench -- passkeys
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../domain/auth/principal';
import { getPool } from '../../domain/db/pool';
import { passkeyAuthenticationOptions, signInWithPasskey, verifyPasskeyAssertion, type PasskeyAssertion } from '../../domain/mobile/passkey-sign-in';
import { passkeyRegistrationOptions, registerPasskey } from '../../domain/mobile/passkeys';
import { newId } from '../../domain/platform/ids';
import { SoftwareAuthenticator, verifyBody } from '../../tests/mobile/authenticator';
import { report, withBenchDatabase, type Run } from './common';

const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '32', 10);
const USERS = Number.parseInt(process.env.BENCH_PASSKEY_USERS ?? '500', 10);
const PER_USER = Number.parseInt(process.env.BENCH_PASSKEYS_PER_USER ?? '4', 10);
const VERIFICATIONS = Number.parseInt(process.env.BENCH_PASSKEY_VERIFICATIONS ?? '12000', 10);
const SIGN_INS = Number.parseInt(process.env.BENCH_PASSKEY_SIGN_INS ?? '4000', 10);

interface Credential {
  device: SoftwareAuthenticator;
  credentialId: string;
}

/** Runs `concurrency` workers, each through its own queue in order; records each call's latency. */
async function driveQueues<T>(queues: T[][], op: (item: T) => Promise<boolean>): Promise<Run & { refused: number }> {
  const latenciesMs: number[] = [];
  let refused = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    queues.map(async (queue) => {
      for (const item of queue) {
        const t0 = process.hrtime.bigint();
        if (!(await op(item))) refused++;
        latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return { ops: latenciesMs.length, seconds: Number(process.hrtime.bigint() - start) / 1e9, latenciesMs, refused };
}

/** `count` assertions, dealt to the workers so that each credential is used by one worker only, in counter order. */
async function signAssertions(creds: Credential[], count: number): Promise<PasskeyAssertion[][]> {
  const queues: PasskeyAssertion[][] = Array.from({ length: CONCURRENCY }, () => []);
  for (let i = 0; i < count; i += CONCURRENCY * 8) {
    const batch = Array.from({ length: Math.min(CONCURRENCY * 8, count - i) }, (_, j) => i + j);
    // Challenges are issued as a client asks for them: discoverable sign-in options, one each.
    const options = await Promise.all(batch.map(() => passkeyAuthenticationOptions()));
    batch.forEach((n, j) => {
      const c = creds[n % creds.length];
      queues[(n % creds.length) % CONCURRENCY].push(verifyBody(c.device.get(options[j], { credentialId: c.credentialId })));
    });
  }
  return queues;
}

export async function benchPasskeys(): Promise<void> {
  process.env.JWT_SECRET ??= randomBytes(32).toString('base64url');
  await withBenchDatabase(async () => {
    const pool = getPool();
    const t0 = performance.now();
    const principals: Principal[] = [];
    for (let u = 0; u < USERS; u++) {
      const userId = newId('usr');
      await pool.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, $2, $3, 'x')`, [userId, `Bench ${u}`, `${userId}@bench.test`]);
      principals.push({ userId, email: `${userId}@bench.test`, isAdmin: false, environment: 'sandbox', permissions: ['read', 'write', 'delete'], credentialId: 'bench', kind: 'session', rateLimitPerMinute: null, biometric: false });
    }
    // Every credential through the real registration path (options, attestation, verification, insert).
    const creds: Credential[] = [];
    for (let k = 0; k < PER_USER; k++) {
      for (let u = 0; u < USERS; u += CONCURRENCY) {
        const made = await Promise.all(
          principals.slice(u, u + CONCURRENCY).map(async (p) => {
            const device = new SoftwareAuthenticator();
            const r = await registerPasskey(p, { response: device.create(await passkeyRegistrationOptions(p)) });
            if (!r.ok) throw new Error(`registration refused: ${r.reason} ${r.detail ?? ''}`);
            return { device, credentialId: r.passkey.credentialId };
          }),
        );
        creds.push(...made);
      }
    }
    const setupMs = performance.now() - t0;
    console.log(
      `passkeys bench: ${USERS} users, ${creds.length} ES256 passkeys registered in ${(setupMs / 1000).toFixed(1)} s, concurrency ${CONCURRENCY}, pool ${CONCURRENCY}`,
    );
    await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.query('SELECT 1')));

    // Warm-up (JIT, prepared plans), then the measured runs on fresh assertions.
    const warm = await signAssertions(creds, CONCURRENCY * 20);
    await driveQueues(warm, async (a) => (await verifyPasskeyAssertion(a)).ok);

    let s = performance.now();
    const verifyQueues = await signAssertions(creds, VERIFICATIONS);
    console.log(`  ${VERIFICATIONS} assertions signed (challenges issued) in ${((performance.now() - s) / 1000).toFixed(1)} s, not timed`);
    const cpu0 = process.cpuUsage();
    const verified = await driveQueues(verifyQueues, async (a) => (await verifyPasskeyAssertion(a)).ok);
    const cpu = process.cpuUsage(cpu0);
    const rate = report('passkey verification (domain, DB)', verified);
    console.log(`  this process's CPU: ${((cpu.user + cpu.system) / 1000 / verified.ops).toFixed(2)} ms per verification (${(((cpu.user + cpu.system) / 1e6 / verified.seconds) * 100).toFixed(0)}% of a core)`);

    s = performance.now();
    const signInQueues = await signAssertions(creds, SIGN_INS);
    console.log(`  ${SIGN_INS} more assertions signed in ${((performance.now() - s) / 1000).toFixed(1)} s, not timed`);
    const signedIn = await driveQueues(signInQueues, async (a) => (await signInWithPasskey(a, 'sandbox')).ok);
    report('passkey sign-in (verify + session + JWT)', signedIn);

    const { rows } = await pool.query<{ spent: number; sessions: number }>(
      `SELECT (SELECT count(*)::int FROM webauthn_challenges WHERE purpose = 'authentication' AND used_at IS NOT NULL) AS spent,
              (SELECT count(*)::int FROM user_sessions WHERE auth_method = 'passkey') AS sessions`,
    );
    console.log(`  refused: ${verified.refused + signedIn.refused} (expected 0); challenges spent ${rows[0].spent}, passkey sessions ${rows[0].sessions}`);
    console.log(`  target 1,000 verifications/s: ${rate >= 1000 && verified.refused === 0 ? 'met' : 'NOT met'}`);
  }, CONCURRENCY);
}
