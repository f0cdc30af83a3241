/**
 * Deterministic packages: the same generated files and metadata always give the same bytes.
 * - npm: a gzipped ustar archive of package/… entries, as `npm pack` makes it (its fixed mtime,
 *   1985-10-26T08:15:00Z; mode 0644; uid/gid 0; no user names), entries sorted by path.
 * - Python: a wheel (a zip: entries sorted, the package then its .dist-info with RECORD last, every
 *   timestamp 1980-01-01 00:00, mode 0644, deflate level 9, no extra fields).
 * gzip carries no name and mtime 0. Both formats are written here, with no archiver dependency;
 * compression runs on libuv's thread pool, off the worker's event loop.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { crc32, deflateRaw, gzip } from 'node:zlib';
import type { GeneratedFiles } from './generate';
import { pythonReadme, pythonSmokeTest, typescriptExample, typescriptReadme, typescriptSmokeTest, type PackageMeta } from './readme';
import { pythonImportName } from './request';

export type { PackageMeta };

export interface BuiltPackage {
  filename: string;
  contentType: 'application/gzip' | 'application/zip';
  bytes: Buffer;
  sha256: string;
}

const deflateRawAsync = promisify(deflateRaw);
const gzipAsync = promisify(gzip);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sorted = (files: Map<string, Buffer>) => [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const text = (s: string) => Buffer.from(s, 'utf8');

// ---- tar.gz (npm) ---------------------------------------------------------------------------

/** 1985-10-26T08:15:00Z: the mtime npm pack writes on every entry. */
const NPM_MTIME = 499_162_500;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

/** ustar name/prefix split (name ≤ 100 bytes, prefix ≤ 155). */
function splitName(p: string): [prefix: string, name: string] {
  if (Buffer.byteLength(p) <= 100) return ['', p];
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) {
    const prefix = p.slice(0, i);
    const name = p.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return [prefix, name];
  }
  throw new Error(`path too long for a tar entry: ${p}`);
}

function tarHeader(p: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  const [prefix, name] = splitName(p);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(NPM_MTIME, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** A gzipped tar of these files (paths as given, sorted). */
export async function tarGz(files: Map<string, Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const [p, data] of sorted(files)) {
    parts.push(tarHeader(p, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipAsync(Buffer.concat(parts), { level: 9 });
}

// ---- zip (wheel) ------------------------------------------------------------------------------

/** 1980-01-01 00:00, the earliest DOS date: every entry's timestamp. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

/** A zip of these entries, in the order given. */
export async function zip(entries: Array<[string, Buffer]>): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const compressed = await Promise.all(entries.map(([, data]) => deflateRawAsync(data, { level: 9 })));
  for (const [i, [p, data]] of entries.entries()) {
    const name = Buffer.from(p, 'utf8');
    const packed = compressed[i];
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, zip 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

// ---- the packages ---------------------------------------------------------------------------

function describe(meta: PackageMeta, language: string): string {
  const who = meta.branding ? `${meta.branding.name} API client` : `${meta.title} client`;
  return `${who} for ${language}, generated from the ${meta.title} OpenAPI document (API ${meta.apiVersion})`;
}

/** The npm tarball: package.json, README.md, dist/ (+ examples/, test/ as the options say). */
export async function buildNpmPackage(dist: GeneratedFiles, meta: PackageMeta): Promise<BuiltPackage> {
  const { include_types: types, include_examples: examples, include_tests: tests } = meta.options;
  const files = new Map<string, Buffer>();
  for (const [p, data] of dist) if (types || !p.endsWith('.d.ts')) files.set(`package/dist/${p}`, data);
  const manifest = {
    name: meta.packageName,
    version: meta.version,
    description: describe(meta, 'TypeScript and JavaScript'),
    keywords: ['banking', 'sdk', 'openapi', 'api-client'],
    license: 'UNLICENSED',
    type: 'module',
    main: './dist/index.js',
    ...(types ? { types: './dist/index.d.ts' } : {}),
    exports: { '.': types ? { types: './dist/index.d.ts', default: './dist/index.js' } : './dist/index.js', './package.json': './package.json' },
    files: ['dist', ...(examples ? ['examples'] : []), ...(tests ? ['test'] : [])],
    sideEffects: false,
    engines: { node: '>=18' },
    ...(tests ? { scripts: { test: 'node --test test/sdk.test.mjs' } } : {}),
    ...(meta.branding ? { branding: meta.branding } : {}),
    sdk: { api_version: meta.apiVersion, modules: meta.modules, generator: `${meta.generator.name} ${meta.generator.version}` },
  };
  files.set('package/package.json', text(`${JSON.stringify(manifest, null, 2)}\n`));
  files.set('package/README.md', text(typescriptReadme(meta)));
  if (examples) files.set('package/examples/quickstart.mjs', text(typescriptExample(meta)));
  if (tests) files.set('package/test/sdk.test.mjs', text(typescriptSmokeTest(meta)));
  const bytes = await tarGz(files);
  return { filename: `${meta.packageName}-${meta.version}.tgz`, contentType: 'application/gzip', bytes, sha256: sha256(bytes) };
}

const recordHash = (b: Buffer) => `sha256=${createHash('sha256').update(b).digest('base64url')}`;

/** The wheel: the generated package (+ py.typed, tests/ as the options say) and its .dist-info. */
export async function buildWheel(generated: GeneratedFiles, meta: PackageMeta): Promise<BuiltPackage> {
  const importName = pythonImportName(meta.packageName);
  const files = new Map<string, Buffer>();
  for (const [p, data] of generated) files.set(`${importName}/${p}`, data);
  if (meta.options.include_types) files.set(`${importName}/py.typed`, Buffer.alloc(0));
  if (meta.options.include_tests) {
    files.set(`${importName}/tests/__init__.py`, Buffer.alloc(0));
    files.set(`${importName}/tests/test_sdk.py`, text(pythonSmokeTest(meta, importName)));
  }
  const distInfo = `${importName}-${meta.version}.dist-info`;
  const metadata = [
    'Metadata-Version: 2.1',
    `Name: ${meta.packageName}`,
    `Version: ${meta.version}`,
    `Summary: ${describe(meta, 'Python')}${meta.branding ? ` (brand colour ${meta.branding.color})` : ''}`,
    'Keywords: banking,sdk,openapi,api-client',
    'License: UNLICENSED',
    'Requires-Python: >=3.11',
    'Requires-Dist: httpx<0.29.0,>=0.23.1',
    'Requires-Dist: attrs>=22.2.0',
    'Description-Content-Type: text/markdown',
    '',
    pythonReadme(meta, importName, generated),
  ].join('\n');
  const wheel = ['Wheel-Version: 1.0', `Generator: ${meta.generator.name} ${meta.generator.version}`, 'Root-Is-Purelib: true', 'Tag: py3-none-any', ''].join('\n');
  const entries: Array<[string, Buffer]> = [
    ...sorted(files),
    [`${distInfo}/METADATA`, text(metadata)],
    [`${distInfo}/WHEEL`, text(wheel)],
    [`${distInfo}/top_level.txt`, text(`${importName}\n`)],
  ];
  const record = [...entries.map(([p, data]) => `${p},${recordHash(data)},${data.length}`), `${distInfo}/RECORD,,`, ''].join('\n');
  entries.push([`${distInfo}/RECORD`, text(record)]);
  const bytes = await zip(entries);
  return { filename: `${importName}-${meta.version}-py3-none-any.whl`, contentType: 'application/zip', bytes, sha256: sha256(bytes) };
}
