/**
 * Runs the code generators, each in a process of its own, bounded in time, in a temporary folder per
 * job that is removed afterwards whatever happens:
 * - TypeScript: @hey-api/openapi-ts 0.95 (fetch client, no runtime dependency) through
 *   hey-api-runner.mjs, then tsc to ES2022 JavaScript (+ declarations);
 * - Python: openapi-python-client 0.29 (installed by `npm ci` into .data/tools/python), with no
 *   post-hooks (no ruff run: the output is the templates' own, deterministic).
 * Every command is execFile with an argument array (no shell); inputs are files the job wrote.
 * Returns the generated files by relative path, for package.ts to lay out and archive.
 * With `cacheDir` (SDK_GENERATOR_CACHE_DIR, set by the test suite) a job whose exact input, recipe
 * and tools were generated before is answered from generator-cache.ts instead of running again.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, REPO_ROOT } from '../../platform/config';
import { cachedGeneration } from './generator-cache';

export type { GeneratedFiles } from './generator-cache';
import type { GeneratedFiles } from './generator-cache';

/** A generator that failed, timed out or is not installed. `retryable` only for a time-out. */
export class SdkGeneratorError extends Error {
  constructor(
    readonly code: 'SDK_GENERATOR_FAILED' | 'SDK_GENERATOR_TIMEOUT' | 'SDK_GENERATOR_UNAVAILABLE',
    message: string,
  ) {
    super(message);
    this.name = 'SdkGeneratorError';
  }
}

const require = createRequire(import.meta.url);
const RUNNER = path.join(REPO_ROOT, 'domain', 'partner', 'sdk', 'hey-api-runner.mjs');
const MAX_OUTPUT = 16 << 20;

export interface GeneratorInfo {
  name: string;
  version: string;
}

let heyApi: GeneratorInfo | undefined;
/** The installed @hey-api/openapi-ts and TypeScript (both shape the npm package's bytes). */
export function typescriptGenerator(): GeneratorInfo & { typescript: string } {
  heyApi ??= { name: '@hey-api/openapi-ts', version: (require('@hey-api/openapi-ts/package.json') as { version: string }).version };
  return { ...heyApi, typescript: (require('typescript/package.json') as { version: string }).version };
}

let pythonGen: GeneratorInfo | undefined;
/** The openapi-python-client in the tools folder, read from its dist-info (no Python started); version 'missing' when absent. */
export function pythonGenerator(): GeneratorInfo {
  if (pythonGen) return pythonGen;
  const dir = loadConfig().sdkPythonToolsDir;
  const info = existsSync(dir) ? readdirSync(dir).find((f) => /^openapi_python_client-.+\.dist-info$/.test(f)) : undefined;
  const version = info ? info.replace(/^openapi_python_client-/, '').replace(/\.dist-info$/, '') : 'missing';
  const found = { name: 'openapi-python-client', version };
  if (info) pythonGen = found;
  return found;
}

/** Runs one command with a deadline; its output tail explains a failure. */
function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; deadline: number; what: string }): Promise<string> {
  const timeout = opts.deadline - Date.now();
  if (timeout <= 0) return Promise.reject(new SdkGeneratorError('SDK_GENERATOR_TIMEOUT', `${opts.what}: no time left`));
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: opts.cwd, env: opts.env, timeout, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(`${stdout}`);
      const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
      if (e.code === 'ENOENT') return reject(new SdkGeneratorError('SDK_GENERATOR_UNAVAILABLE', `${opts.what}: ${command} not found`));
      if (e.killed || e.signal === 'SIGKILL') return reject(new SdkGeneratorError('SDK_GENERATOR_TIMEOUT', `${opts.what} did not finish within ${Math.round(timeout / 1000)} s`));
      const tail = `${stderr}${stdout}`.trim().split('\n').slice(-15).join('\n').slice(-2000);
      if (/No module named .?openapi_python_client/.test(tail)) {
        return reject(new SdkGeneratorError('SDK_GENERATOR_UNAVAILABLE', `${opts.what}: openapi-python-client is not installed (npm ci installs it into .data/tools/python)`));
      }
      reject(new SdkGeneratorError('SDK_GENERATOR_FAILED', `${opts.what} failed: ${tail}`));
    });
  });
}

/** Every file under dir, by path relative to it with forward slashes, sorted. */
async function collect(dir: string, base = dir, out: GeneratedFiles = new Map()): Promise<GeneratedFiles> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await collect(full, base, out);
    else if (e.isFile()) out.set(path.relative(base, full).split(path.sep).join('/'), await readFile(full));
  }
  return out;
}

/** A temporary folder for one job, removed when fn settles. */
async function inJobDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Only what the tools need from the environment: no secrets of the platform reach them. */
function toolEnv(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8', NO_COLOR: '1', ...extra };
}

export interface TypescriptOutput {
  /** dist/*.js (and *.d.ts with declarations), relative to dist. */
  dist: GeneratedFiles;
}

/**
 * TypeScript: hey-api writes src/*.ts (imports with .js extensions, ESM), tsc compiles it to
 * dist/ for Node 18+ and browsers (fetch). `declarations` adds the .d.ts files.
 */
export async function generateTypescript(documentJson: string, opts: { declarations: boolean; deadline: number; cacheDir?: string }): Promise<TypescriptOutput> {
  const job = { generator: 'typescript' as const, documentJson, declarations: opts.declarations };
  const dist = await cachedGeneration(opts.cacheDir, job, { deadline: opts.deadline, timedOut: () => waitedTooLong('@hey-api/openapi-ts') }, () =>
    runTypescript(documentJson, opts),
  );
  return { dist };
}

/** A generator whose identical job another process was running did not finish within our budget. */
function waitedTooLong(what: string): SdkGeneratorError {
  return new SdkGeneratorError('SDK_GENERATOR_TIMEOUT', `${what}: the same generation, run by another process, did not finish in time`);
}

async function runTypescript(documentJson: string, opts: { declarations: boolean; deadline: number }): Promise<GeneratedFiles> {
  return inJobDir('sdk-ts-', async (dir) => {
    const env = toolEnv(dir);
    await writeFile(path.join(dir, 'openapi.json'), documentJson);
    await writeFile(path.join(dir, 'package.json'), '{"type":"module"}\n');
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: [],
        strict: true,
        skipLibCheck: true,
        declaration: opts.declarations,
        outDir: 'dist',
        rootDir: 'src',
        newLine: 'lf',
        noEmitOnError: true,
      },
      include: ['src'],
    };
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await writeFile(
      path.join(dir, 'openapi-ts.json'),
      JSON.stringify({
        input: path.join(dir, 'openapi.json'),
        output: { path: path.join(dir, 'src'), module: { extension: '.js' }, tsConfigPath: path.join(dir, 'tsconfig.json'), postProcess: [] },
        // The client goes into the entry file: callers configure it (baseUrl, auth) from the package root.
        plugins: [{ name: '@hey-api/client-fetch', includeInEntry: true }, '@hey-api/typescript', '@hey-api/sdk'],
        logs: { level: 'error', file: false },
      }),
    );
    await run(process.execPath, [RUNNER, path.join(dir, 'openapi-ts.json')], { cwd: dir, env, deadline: opts.deadline, what: '@hey-api/openapi-ts' });
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')], { cwd: dir, env, deadline: opts.deadline, what: 'tsc' });
    return collect(path.join(dir, 'dist'));
  });
}

/**
 * Python: the package's files (no project metadata: package.ts writes the wheel's), relative to the
 * package folder. With `--meta none` the generator writes only the package's modules, which import
 * each other relatively, so the project's name, import name and version are not passed: the output
 * depends on the document alone, and one generation (or cache entry) serves every package name.
 */
export async function generatePython(documentJson: string, opts: { deadline: number; cacheDir?: string }): Promise<GeneratedFiles> {
  const cfg = loadConfig();
  const job = { generator: 'python' as const, documentJson, python: cfg.sdkPython, toolsDir: cfg.sdkPythonToolsDir };
  return cachedGeneration(opts.cacheDir, job, { deadline: opts.deadline, timedOut: () => waitedTooLong('openapi-python-client') }, () => runPython(documentJson, opts));
}

async function runPython(documentJson: string, opts: { deadline: number }): Promise<GeneratedFiles> {
  const cfg = loadConfig();
  return inJobDir('sdk-py-', async (dir) => {
    await writeFile(path.join(dir, 'openapi.json'), documentJson);
    await writeFile(
      path.join(dir, 'config.json'),
      JSON.stringify({
        post_hooks: [],
        // The MiFID report file is XML: read it as text rather than leaving the operation without a response.
        content_type_overrides: { 'application/xml': 'text/xml' },
      }),
    );
    const out = path.join(dir, 'out');
    await mkdir(path.join(dir, 'home'));
    const env = toolEnv(path.join(dir, 'home'), { PYTHONPATH: cfg.sdkPythonToolsDir, PYTHONDONTWRITEBYTECODE: '1', PYTHONHASHSEED: '0', PYTHONNOUSERSITE: '1' });
    await run(
      cfg.sdkPython,
      ['-m', 'openapi_python_client', 'generate', '--path', path.join(dir, 'openapi.json'), '--config', path.join(dir, 'config.json'), '--meta', 'none', '--output-path', out],
      { cwd: dir, env, deadline: opts.deadline, what: 'openapi-python-client' },
    );
    if (!existsSync(path.join(out, '__init__.py'))) throw new SdkGeneratorError('SDK_GENERATOR_FAILED', 'openapi-python-client wrote no package');
    return collect(out);
  });
}
