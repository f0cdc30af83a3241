import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';

export interface EmbeddedDatabase {
  url: string;
  /** The port actually listened on (useful when 0 was asked for). */
  port: number;
  stop(): Promise<void>;
}

/** How long a second client waits for the current one to disconnect before it is refused. */
const CONNECTION_WAIT_MS = 10_000;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]); // 'S', length 4
const TERMINATE = 0x58; // 'X'

/** A FATAL ErrorResponse, so that a refused client reads an error rather than a torn connection. */
function fatal(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * PGlite (PostgreSQL compiled to WASM) persisted under dataDir, served over the PostgreSQL wire
 * protocol so pg and Prisma run unchanged. The platform's pool uses one connection (DB_POOL_MAX=1).
 *
 * PGlite is one backend: one session whose state (named prepared statements, an open
 * transaction, session settings, advisory locks) would outlive a dropped client and trip up the
 * next one (`prepared statement "…" already exists`). So this server, instead of
 * @electric-sql/pglite-socket's, serves one client at a time, makes a client that arrives while
 * another is connected wait for it (rather than refusing it with raw text), and gives every
 * client a fresh session: before it is served, any half-sent extended query is ended (Sync), an
 * open transaction rolled back and the session discarded (DISCARD ALL), as a new PostgreSQL
 * connection would be.
 */
export async function startEmbeddedDatabase(dataDir: string, port: number): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir });
  const server = new SerialWireServer(db);
  const actual = await server.listen(port, '127.0.0.1');
  return {
    url: `postgresql://postgres@127.0.0.1:${actual}/postgres?sslmode=disable`,
    port: actual,
    async stop() {
      await server.close();
      await db.close();
    },
  };
}

/** Resets PGlite's single session to what a new connection would see. */
export async function resetSession(db: PGlite): Promise<void> {
  await db.runExclusive(() => db.execProtocolRaw(SYNC, { syncToFs: false }));
  if (db.isInTransaction()) await db.exec('ROLLBACK');
  await db.exec('DISCARD ALL');
}

interface Waiting {
  socket: net.Socket;
  pending: Buffer;
  timer: NodeJS.Timeout;
}

class SerialWireServer {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly sockets = new Set<net.Socket>();
  private readonly waiting: Waiting[] = [];
  private active: net.Socket | undefined;
  private closing = false;

  constructor(private readonly db: PGlite) {}

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Let the last session's in-flight message finish before PGlite is closed.
    await this.db.runExclusive(async () => undefined).catch(() => undefined);
  }

  /**
   * Before the startup message: answers SSL/GSS requests with 'N' (not supported, the client
   * goes on in clear text over loopback) and drops cancel requests (PGlite cannot cancel).
   * Then the client queues for the session.
   */
  private accept(socket: net.Socket): void {
    if (this.closing) return void socket.destroy();
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 8) {
        const len = buf.readInt32BE(0);
        const code = buf.readInt32BE(4);
        if (len === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
          socket.write('N');
          buf = buf.subarray(8);
          continue;
        }
        if (len === 16 && code === CANCEL_REQUEST) return void socket.destroy();
        socket.off('data', onData);
        socket.pause();
        this.enqueue(socket, buf);
        return;
      }
    };
    socket.on('data', onData);
  }

  private enqueue(socket: net.Socket, pending: Buffer): void {
    const timer = setTimeout(() => {
      const i = this.waiting.findIndex((w) => w.socket === socket);
      if (i < 0) return;
      this.waiting.splice(i, 1);
      socket.end(fatal('53300', 'the embedded database serves one connection at a time and it is in use'));
    }, CONNECTION_WAIT_MS);
    timer.unref();
    this.waiting.push({ socket, pending, timer });
    socket.once('close', () => {
      const i = this.waiting.findIndex((w) => w.socket === socket);
      if (i >= 0) clearTimeout(this.waiting.splice(i, 1)[0].timer);
    });
    void this.next();
  }

  private async next(): Promise<void> {
    if (this.active || this.closing) return;
    const w = this.waiting.shift();
    if (!w) return;
    clearTimeout(w.timer);
    this.active = w.socket;
    try {
      await resetSession(this.db);
    } catch {
      // A session that cannot be reset cannot be trusted: refuse this client, try the next one.
      w.socket.end(fatal('57P03', 'the embedded database could not reset its session'));
      this.active = undefined;
      return this.next();
    }
    if (w.socket.destroyed || this.closing) {
      this.active = undefined;
      return this.next();
    }
    this.serve(w.socket, w.pending);
  }

  /** Feeds the client's messages to PGlite one by one, in order, and streams back its answers. */
  private serve(socket: net.Socket, initial: Buffer): void {
    let buf = initial;
    let started = false;
    let chain = Promise.resolve();
    let ended = false;
    const end = (last?: Buffer) => {
      if (ended) return;
      ended = true;
      if (last && socket.writable) socket.end(last);
      else socket.destroy();
      // The session is free once its last message has been answered.
      void chain.then(() => {
        this.active = undefined;
        return this.next();
      });
    };
    const pump = () => {
      while (!ended) {
        let size: number;
        if (!started) {
          if (buf.length < 4) return;
          size = buf.readInt32BE(0);
        } else {
          if (buf.length < 5) return;
          size = 1 + buf.readInt32BE(1);
        }
        if (size < 4 || buf.length < size) return;
        const message = new Uint8Array(buf.subarray(0, size));
        buf = buf.subarray(size);
        started = true;
        if (message[0] === TERMINATE) return end();
        chain = chain.then(async () => {
          if (ended) return;
          try {
            await this.db.runExclusive(() =>
              this.db.execProtocolRawStream(message, {
                onRawData: (data) => {
                  if (!ended && data.length > 0) socket.write(Buffer.from(data));
                },
              }),
            );
          } catch {
            // PGlite threw instead of answering: this client's session is in an unknown state.
            end(fatal('XX000', 'the embedded database failed to process a message'));
          }
        });
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      pump();
    });
    socket.on('close', () => end());
    socket.on('end', () => end());
    socket.resume();
    pump();
  }
}
