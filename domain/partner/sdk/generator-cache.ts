/**
 * A content-addressed cache of generator output (generate.ts), off unless SDK_GENERATOR_CACHE_DIR
 * names a folder. The test suite turns it on (.data/sdk-generator-cache): its files generate the
 * same document with the same generator many times, and CI's second pass runs on the same clone.
 *
 * An entry is one file, <key>.json, holding the generated files. The key is the SHA-256 of
 * everything that shapes them, so a stale entry cannot be found:
 * - the generator input: the document's exact text and the job's parameters (TypeScript:
 *   declarations; Python: none, the package's names are not generator input);
 * - the recipe: generate.ts and hey-api-runner.mjs, byte for byte (configurations, flags, steps);
 * - the tools as installed: for TypeScript node_modules/.package-lock.json (every installed
 *   package's version and integrity: hey-api, TypeScript and their dependencies) and the versions of
 *   hey-api and TypeScript that resolve from here; for Python the
 *   interpreter's version, every distribution in the tools folder by name and version, and
 *   openapi-python-client's RECORD (its files' hashes).
 * The Node.js running the tools is not part of it: hey-api and tsc are JavaScript whose output
 * does not depend on the engine (CI's Node 20 and Node 24 passes share entries).
 * When the tools cannot be fingerprinted (one missing), the generator runs uncached.
 *
 * Concurrent files of a run (separate processes) ask for the same key at once: the first takes
 * <key>.lock (created exclusively) and generates, the others wait for its entry; a lock whose
 * process is gone, or older than LOCK_STALE_MS, is taken over. An entry is written to a temporary
 * file in the folder and renamed into place, so a reader never sees half of one. A failed
 * generation stores nothing and releases the lock (the next caller runs the generator itself).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../platform/config';

const FORMAT = 'sdk-generator-cache/1';
/** A lock older than this is abandoned whoever holds it (a generator's own budget is 120 s by default). */
const LOCK_STALE_MS = 10 * 60_000;
/** Entries kept (a Python one is ~2 MB, a TypeScript one ~0.4 MB; a test run makes four); the least recently used beyond this are removed when one is added. */
const MAX_ENTRIES = 16;
/** A temporary file older than this was left by a process that died while writing it. */
const TMP_STALE_MS = 60 * 60_000;
const POLL_MS = 100;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/*
 * The fingerprints are read again for every job (a few hundred kilobytes: nothing beside a
 * generator run), so tools reinstalled under a running process give new keys at once; only the
 * interpreter's version is kept per process and path.
 */

/** generate.ts and the hey-api runner, byte for byte. */
async function recipeHash(): Promise<string> {
  const dir = path.join(REPO_ROOT, 'domain', 'partner', 'sdk');
  const parts = await Promise.all(['generate.ts', 'hey-api-runner.mjs'].map((f) => readFile(path.join(dir, f))));
  return sha256(Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\0')])));
}

/** A generator's output: path → bytes (generate.ts re-exports it; defined here so the two do not import each other). */
export type GeneratedFiles = Map<string, Buffer>;

const require = createRequire(import.meta.url);
/**
 * The installed npm packages (hey-api, TypeScript and everything they load), by version and
 * integrity, and the manifests of hey-api and TypeScript as they resolve from here (what generate.ts runs).
 */
async function typescriptToolsHash(): Promise<string> {
  const files = [path.join(REPO_ROOT, 'node_modules', '.package-lock.json'), require.resolve('@hey-api/openapi-ts/package.json'), require.resolve('typescript/package.json')];
  return sha256((await Promise.all(files.map((f) => readFile(f)))).map(sha256).join('\n'));
}

const interpreters = new Map<string, Promise<string>>();
/** The interpreter's version, the tools folder's distributions and openapi-python-client's RECORD. */
async function pythonToolsHash(python: string, toolsDir: string): Promise<string> {
  let version = interpreters.get(python);
  if (!version) {
    version = promisify(execFile)(python, ['-c', 'import sys; print(sys.version)'], {
      timeout: 10_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONNOUSERSITE: '1' },
    }).then(({ stdout }) => stdout.trim());
    version.catch(() => interpreters.delete(python));
    interpreters.set(python, version);
  }
  const dists = (await readdir(toolsDir)).filter((f) => f.endsWith('.dist-info')).sort();
  const generator = dists.find((f) => /^openapi_python_client-.+\.dist-info$/.test(f));
  if (!generator) throw new Error('openapi-python-client is not installed');
  const record = await readFile(path.join(toolsDir, generator, 'RECORD'));
  return sha256([await version, ...dists, sha256(record)].join('\n'));
}

/** JSON with object keys sorted, so a key does not depend on property order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export type GeneratorJob =
  | { generator: 'typescript'; documentJson: string; declarations: boolean }
  | { generator: 'python'; documentJson: string; python: string; toolsDir: string };

/** The job's cache key, or null when its tools cannot be fingerprinted (then it runs uncached). */
export async function generatorCacheKey(job: GeneratorJob): Promise<string | null> {
  try {
    const { documentJson, ...params } = job;
    const tools = job.generator === 'typescript' ? await typescriptToolsHash() : await pythonToolsHash(job.python, job.toolsDir);
    // The interpreter and folder are fingerprinted by what they hold, not by where they are.
    const parameters = job.generator === 'python' ? { ...params, python: undefined, toolsDir: undefined } : params;
    return sha256(canonical({ format: FORMAT, document: sha256(documentJson), parameters, recipe: await recipeHash(), tools }));
  } catch {
    return null;
  }
}

async function readEntry(file: string, key: string): Promise<GeneratedFiles | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const entry = JSON.parse(text) as { format: string; key: string; files: Array<[string, string]> };
    if (entry.format !== FORMAT || entry.key !== key || !Array.isArray(entry.files) || entry.files.length === 0) return null;
    const now = new Date();
    await utimes(file, now, now).catch(() => {});
    return new Map(entry.files.map(([p, b64]) => [p, Buffer.from(b64, 'base64')]));
  } catch {
    return null; // unreadable: generated again and replaced
  }
}

async function writeEntry(dir: string, key: string, files: GeneratedFiles): Promise<void> {
  const tmp = path.join(dir, `.${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify({ format: FORMAT, key, files: [...files].map(([p, b]) => [p, b.toString('base64')]) }));
    await rename(tmp, path.join(dir, `${key}.json`));
  } finally {
    await unlink(tmp).catch(() => {});
  }
  await prune(dir).catch(() => {});
}

/** Keeps the MAX_ENTRIES most recently used entries and removes abandoned temporary files. */
async function prune(dir: string): Promise<void> {
  const all = await readdir(dir);
  const mtime = async (f: string) => (await stat(path.join(dir, f)).catch(() => null))?.mtimeMs ?? 0;
  for (const f of all.filter((n) => n.endsWith('.tmp'))) {
    if (Date.now() - (await mtime(f)) > TMP_STALE_MS) await unlink(path.join(dir, f)).catch(() => {});
  }
  const names = all.filter((f) => /^[0-9a-f]{64}\.json$/.test(f));
  if (names.length <= MAX_ENTRIES) return;
  const aged = await Promise.all(names.map(async (f) => ({ f, t: await mtime(f) })));
  aged.sort((a, b) => b.t - a.t);
  await Promise.all(aged.slice(MAX_ENTRIES).map(({ f }) => unlink(path.join(dir, f)).catch(() => {})));
}

/** Takes the lock; false when another holds it. */
async function tryLock(lock: string): Promise<boolean> {
  let h: FileHandle;
  try {
    h = await open(lock, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await h.writeFile(JSON.stringify({ pid: process.pid }));
    await h.close();
    return true;
  } catch (err) {
    await h.close().catch(() => {});
    await unlink(lock).catch(() => {});
    throw err;
  }
}

/** A lock whose process is gone or that is older than LOCK_STALE_MS. */
async function lockIsStale(lock: string): Promise<boolean> {
  const info = await stat(lock).catch(() => null);
  if (!info) return false; // released meanwhile
  const age = Date.now() - info.mtimeMs;
  if (age > LOCK_STALE_MS) return true;
  let pid = Number.NaN;
  try {
    pid = Number((JSON.parse(await readFile(lock, 'utf8')) as { pid?: unknown }).pid);
  } catch {
    // empty or half written
  }
  if (!Number.isInteger(pid) || pid <= 0) return age > 5000; // being written, or its writer died right after creating it
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The output of a generator job: from the cache when an entry has the job's key, else produced
 * (by one caller at a time per key) and stored. Without a folder or a key, produce() runs as is.
 */
export async function cachedGeneration(
  cacheDir: string | undefined,
  job: GeneratorJob,
  opts: { deadline: number; timedOut: () => Error },
  produce: () => Promise<GeneratedFiles>,
): Promise<GeneratedFiles> {
  const key = cacheDir ? await generatorCacheKey(job) : null;
  if (!cacheDir || !key) return produce();
  try {
    await mkdir(cacheDir, { recursive: true });
  } catch {
    return produce();
  }
  const file = path.join(cacheDir, `${key}.json`);
  const lock = path.join(cacheDir, `${key}.lock`);
  for (;;) {
    const hit = await readEntry(file, key);
    if (hit) return hit;
    let locked: boolean;
    try {
      locked = await tryLock(lock);
    } catch {
      return produce(); // the folder cannot hold a lock: no cache
    }
    if (locked) {
      try {
        const stored = await readEntry(file, key); // written between the first look and the lock
        if (stored) return stored;
        const files = await produce();
        await writeEntry(cacheDir, key, files).catch(() => {});
        return files;
      } finally {
        await unlink(lock).catch(() => {});
      }
    }
    if (await lockIsStale(lock)) {
      await unlink(lock).catch(() => {});
      continue;
    }
    if (Date.now() >= opts.deadline) throw opts.timedOut();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
