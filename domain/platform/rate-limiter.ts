import { Redis } from 'ioredis';

export interface Window {
  limit: number;
  windowSeconds: number;
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the constraining window frees a request */
  reset: number;
  retryAfter: number;
  /** Windows this very hit took across WARNING_SHARE of their limit (rare: the warning's only trigger). */
  crossed?: Array<{ limit: number; windowSeconds: number; used: number; windowStart: number }>;
}

/** Share of a window's limit whose crossing raises system.rate_limit_warning. */
export const WARNING_SHARE = 0.8;

/**
 * Sliding-window counter (the weighted sum of the current and previous fixed windows), per key
 * and per window size. It needs two counters per window instead of a log of every request, and
 * errs by at most the previous window's share, which is what the limits here tolerate.
 */
export interface RateLimiter {
  /** Counts `cost` units (default 1: one request) against every window of the key. */
  hit(key: string, windows: Window[], cost?: number): Promise<LimitResult>;
  close(): Promise<void>;
}

function combine(now: number, windows: Window[], counts: Array<{ current: number; previous: number }>): LimitResult {
  let worst: LimitResult | undefined;
  let allowed = true;
  const crossed: NonNullable<LimitResult['crossed']> = [];
  windows.forEach((w, i) => {
    const start = Math.floor(now / w.windowSeconds) * w.windowSeconds;
    const elapsed = (now - start) / w.windowSeconds;
    const estimate = counts[i].previous * (1 - elapsed) + counts[i].current;
    const remaining = Math.max(0, Math.floor(w.limit - estimate));
    const over = estimate > w.limit;
    const mark = WARNING_SHARE * w.limit;
    if (estimate >= mark && estimate - 1 < mark) crossed.push({ limit: w.limit, windowSeconds: w.windowSeconds, used: Math.ceil(estimate), windowStart: start });
    if (over) allowed = false;
    const reset = Math.ceil(start + w.windowSeconds);
    const r: LimitResult = { allowed: !over, limit: w.limit, remaining, reset, retryAfter: over ? Math.max(1, Math.ceil(reset - now)) : 0 };
    // Report the window closest to exhaustion.
    if (!worst || (over && worst.allowed) || (over === !worst.allowed && r.remaining / r.limit < worst.remaining / worst.limit)) worst = r;
  });
  // worst is this call's own object: completed in place (docs/operations.md, "Object spread on hot paths").
  worst!.allowed = allowed;
  if (crossed.length > 0) worst!.crossed = crossed;
  return worst!;
}

export class MemoryRateLimiter implements RateLimiter {
  private counters = new Map<string, { window: number; count: number }>();
  private sweepAt = 0;

  private get(key: string, window: number): number {
    const c = this.counters.get(key);
    return c && c.window === window ? c.count : 0;
  }

  async hit(key: string, windows: Window[], cost = 1): Promise<LimitResult> {
    const now = Date.now() / 1000;
    const counts = windows.map((w) => {
      const idx = Math.floor(now / w.windowSeconds);
      const curKey = `${key}:${w.windowSeconds}:${idx % 2}`;
      const prevKey = `${key}:${w.windowSeconds}:${(idx + 1) % 2}`;
      const current = this.get(curKey, idx) + cost;
      this.counters.set(curKey, { window: idx, count: current });
      return { current, previous: this.get(prevKey, idx - 1) };
    });
    if (now > this.sweepAt) this.sweep(now);
    return combine(now, windows, counts);
  }

  private sweep(now: number) {
    this.sweepAt = now + 300;
    for (const [k, v] of this.counters) {
      const size = Number(k.split(':').at(-2));
      if (v.window < Math.floor(now / size) - 1) this.counters.delete(k);
    }
  }

  async close() {}
}

// Adds the cost (last argument) to the current window and reads the previous one atomically in Redis.
const HIT_SCRIPT = `
local out = {}
local cost = tonumber(ARGV[#ARGV])
for i = 1, #KEYS, 2 do
  local size = tonumber(ARGV[(i + 1) / 2])
  local cur = redis.call('INCRBY', KEYS[i], cost)
  if cur == cost then redis.call('EXPIRE', KEYS[i], size * 2 + 5) end
  local prev = tonumber(redis.call('GET', KEYS[i + 1]) or '0')
  table.insert(out, cur)
  table.insert(out, prev)
end
return out`;

export class RedisRateLimiter implements RateLimiter {
  private redis: Redis;
  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => undefined);
  }

  async hit(key: string, windows: Window[], cost = 1): Promise<LimitResult> {
    const now = Date.now() / 1000;
    const keys: string[] = [];
    for (const w of windows) {
      const idx = Math.floor(now / w.windowSeconds);
      keys.push(`rl:${key}:${w.windowSeconds}:${idx}`, `rl:${key}:${w.windowSeconds}:${idx - 1}`);
    }
    const res = (await this.redis.eval(HIT_SCRIPT, keys.length, ...keys, ...windows.map((w) => w.windowSeconds), cost)) as number[];
    const counts = windows.map((_, i) => ({ current: Number(res[i * 2]), previous: Number(res[i * 2 + 1]) }));
    return combine(now, windows, counts);
  }

  async close() {
    this.redis.disconnect();
  }
}

export function createRateLimiter(redisUrl: string): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl) : new MemoryRateLimiter();
}
