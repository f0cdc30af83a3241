/**
 * Group commit: callers submit one item each and get its own result, while the items that arrive
 * together are written in one database statement and one commit.
 *
 * Nothing waits for a batch to fill. With no batch running an item is sent at once; while fewer
 * than `maxInFlight` run, it goes at once too, or after `holdNext` of the running batch's expected
 * time when that is set; otherwise it queues and goes with the next batch (up to `maxBatch` items).
 * At low load every batch has one item and no latency is added; under load, batches grow to match
 * it and the per-transaction costs (commit, lock waits, statement start-up) are shared.
 */
export interface GroupCommitOptions<I, R> {
  /** Writes the items in one transaction; returns one result per item, in order. */
  runBatch(items: I[]): Promise<R[]>;
  /**
   * Whether a failed batch may be retried item by item: true when the error is a definite
   * statement error (the batch's transaction rolled back), so that only the culprit fails. A lost
   * connection is not definite (the commit may have happened) and fails every item.
   */
  retryAlone(err: unknown): boolean;
  /**
   * Rows an item locks (ledger accounts). Batches in flight at the same time hold disjoint sets,
   * so they run in parallel instead of queueing on each other's row locks; an item that would
   * overlap waits for a later batch.
   */
  locks(item: I): string[];
  maxBatch: number;
  maxInFlight: number;
  /**
   * While a batch runs, how long the next one waits before it is sent, as a share of the running
   * batch's expected time for its size (RunTimeModel; 0 or unset: at once). For batches that share
   * one pipelined connection: one sent early only waits at the server, one sent later takes along
   * what arrived meanwhile, so the same load makes fewer, larger batches. A full batch goes at once.
   */
  holdNext?: number;
}

interface Waiting<I, R> {
  item: I;
  locks: string[];
  resolve(r: R): void;
  reject(err: unknown): void;
}

// Captured at load: a test's fake timers must not hold back the answers or the held batch.
const answerLater: (fn: () => void) => void = globalThis.setImmediate;
const sendLater: (fn: () => void, ms: number) => unknown = globalThis.setTimeout;

export class GroupCommit<I, R> {
  private queue: Array<Waiting<I, R>> = [];
  /** Locks held by the batches in flight (a count per key). */
  private held = new Map<string, number>();
  /** When the running batch started (the one before it ended, or it was sent to an idle database). */
  private runningSince = 0;
  /** The batches in flight, oldest (the running one) first. */
  private running: Array<Array<Waiting<I, R>>> = [];
  /** How long batches run by their size (ms), learnt from recent ones. */
  private runTime = new RunTimeModel();
  private holdTimer: unknown = null;

  constructor(private readonly opts: GroupCommitOptions<I, R>) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, locks: this.opts.locks(item), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running.length < this.opts.maxInFlight && this.queue.length > 0) {
      if (this.holding()) return;
      const batch = this.take();
      if (batch.length === 0) return; // everything queued waits for a batch in flight
      const keys = batch.flatMap((w) => w.locks);
      for (const k of keys) this.held.set(k, (this.held.get(k) ?? 0) + 1);
      if (this.running.length === 0) this.runningSince = performance.now();
      this.running.push(batch);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        // The batch sent after this one (if any) runs from now.
        const now = performance.now();
        // Its own entry, not the oldest: batches on disjoint locks may finish out of order.
        this.running.splice(this.running.indexOf(batch), 1);
        this.runTime.observe(batch.length, now - this.runningSince);
        this.runningSince = now;
        for (const k of keys) {
          const n = (this.held.get(k) ?? 1) - 1;
          if (n === 0) this.held.delete(k);
          else this.held.set(k, n);
        }
        this.pump();
      };
      void this.run(batch, release).finally(release);
    }
  }

  /** Whether the next batch waits (holdNext); if so, a timer sends it when the wait is over. */
  private holding(): boolean {
    const share = this.opts.holdNext ?? 0;
    if (share <= 0 || this.running.length === 0 || this.queue.length >= this.opts.maxBatch) return false;
    const expected = this.runTime.expect(this.running[0]?.length ?? 1);
    if (expected === 0) return false;
    const wait = this.runningSince + share * expected - performance.now();
    if (wait <= 0) return false;
    this.holdTimer ??= sendLater(() => {
      this.holdTimer = null;
      this.pump();
    }, wait);
    return true;
  }

  /**
   * The oldest queued items, up to maxBatch, whose locks no batch in flight holds. An item never
   * passes an older waiting one that locks a row it locks too: each row's items are posted in the
   * order they arrived, and none waits forever.
   */
  private take(): Array<Waiting<I, R>> {
    const batch: Array<Waiting<I, R>> = [];
    const rest: Array<Waiting<I, R>> = [];
    const waiting = new Set<string>();
    for (const w of this.queue) {
      if (batch.length < this.opts.maxBatch && !w.locks.some((k) => this.held.has(k) || waiting.has(k))) {
        batch.push(w);
      } else {
        rest.push(w);
        for (const k of w.locks) waiting.add(k);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async run(batch: Array<Waiting<I, R>>, release: () => void): Promise<void> {
    try {
      const results = await this.opts.runBatch(batch.map((w) => w.item));
      // The next batch goes to the database first: answering this one's callers (their responses
      // are built before the event loop returns) would otherwise leave the connection idle meanwhile.
      release();
      answerLater(() => batch.forEach((w, i) => w.resolve(results[i])));
    } catch (err) {
      if (batch.length === 1 || !this.opts.retryAlone(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // Nothing of the batch was written: each item on its own finds the one that failed.
      await Promise.all(
        batch.map(async (w) => {
          try {
            w.resolve((await this.opts.runBatch([w.item]))[0]);
          } catch (e) {
            w.reject(e);
          }
        }),
      );
    }
  }
}

/**
 * A batch's run time as a fixed part plus a part per item (commit and statement start-up against
 * rows written), fitted by least squares over recent batches with older ones weighing less: a
 * batch of 2 after one of 14 ends far sooner, and a hold computed from the average would wait past it.
 */
export class RunTimeModel {
  private w = 0;
  private x = 0;
  private y = 0;
  private xx = 0;
  private xy = 0;

  constructor(private readonly decay = 0.95) {}

  observe(size: number, ms: number): void {
    const d = this.decay;
    this.w = d * this.w + 1;
    this.x = d * this.x + size;
    this.y = d * this.y + ms;
    this.xx = d * this.xx + size * size;
    this.xy = d * this.xy + size * ms;
  }

  /** Expected run time (ms) of a batch of `size`; 0 before any batch ran. */
  expect(size: number): number {
    if (this.w === 0) return 0;
    const spread = this.w * this.xx - this.x * this.x;
    // Sizes too alike to tell the parts apart: their average time.
    if (spread <= 1e-6 * this.w * this.w) return this.y / this.w;
    const perItem = (this.w * this.xy - this.x * this.y) / spread;
    const fixed = (this.y - perItem * this.x) / this.w;
    if (perItem >= 0 && fixed >= 0) return fixed + perItem * size;
    // A fit that makes one part negative (noise): time in proportion to size.
    return (this.xy / this.xx) * size;
  }
}
