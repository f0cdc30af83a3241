/**
 * Building one package: the work of an activity (activities/partner/sdk.ts), idempotent by cache
 * key. The key hashes everything that shapes the bytes (the filtered document, the generator and
 * its version, TypeScript's, zlib's, the packaging format, package name, version, branding and
 * options), so a key already in sdk_packages is answered from there and a repeated or retried
 * build never generates twice.
 */
import { createHash } from 'node:crypto';
import { loadConfig } from '../../platform/config';
import { newId } from '../../platform/ids';
import { generatePython, generateTypescript, pythonGenerator, typescriptGenerator, type GeneratorInfo } from './generate';
import { buildNpmPackage, buildWheel, type BuiltPackage, type PackageMeta } from './package';
import type { SdkLanguage, SdkRequest } from './request';
import { sdkDocument, type SdkDocument } from './spec';
import { findGeneration, insertPackage, packagesByCacheKey, toPackageResult, type SdkPackageResult } from './store';

/** Bump when package.ts or readme.ts changes what a package contains. */
const PACKAGING = 'sdk-package/1';

function generatorFor(language: SdkLanguage): GeneratorInfo {
  if (language === 'python') return pythonGenerator();
  const { name, version } = typescriptGenerator();
  return { name, version };
}

export function cacheKeyFor(language: SdkLanguage, req: SdkRequest, doc: SdkDocument): string {
  const parts = {
    packaging: PACKAGING,
    language,
    generator: language === 'typescript' ? typescriptGenerator() : pythonGenerator(),
    zlib: process.versions.zlib,
    document: doc.sha256,
    api_version: req.api_version,
    modules: req.modules,
    package_name: req.package_name,
    version: doc.version,
    branding: req.branding,
    options: req.options,
  };
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** JSON with object keys sorted at every depth: the request comes back from jsonb in another key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The cache keys of a request's packages, by language. */
export async function cacheKeysOf(req: SdkRequest): Promise<Map<SdkLanguage, string>> {
  const doc = await sdkDocument(req.api_version, req.modules);
  return new Map(req.languages.map((l) => [l, cacheKeyFor(l, req, doc)]));
}

/** Generates and packages one language of a generation, or finds it built; stores it (first writer wins). */
export async function buildSdkPackage(generationId: string, language: SdkLanguage): Promise<SdkPackageResult> {
  const g = await findGeneration(generationId);
  if (!g) throw new Error(`SDK generation ${generationId} not found`);
  const req = g.request;
  const doc = await sdkDocument(req.api_version, req.modules);
  const cacheKey = cacheKeyFor(language, req, doc);
  const existing = (await packagesByCacheKey([cacheKey])).get(cacheKey);
  if (existing) return toPackageResult(existing, true);

  const started = performance.now();
  const cfg = loadConfig();
  const deadline = Date.now() + cfg.sdkGeneratorTimeoutSeconds * 1000;
  const cacheDir = cfg.sdkGeneratorCacheDir || undefined;
  const generator = generatorFor(language);
  const meta: PackageMeta = {
    packageName: req.package_name,
    version: doc.version,
    apiVersion: req.api_version,
    modules: req.modules,
    branding: req.branding,
    options: req.options,
    generator,
    title: doc.title,
    operations: doc.operations,
  };
  let built: BuiltPackage;
  if (language === 'typescript') {
    const { dist } = await generateTypescript(doc.json, { declarations: req.options.include_types, deadline, cacheDir });
    built = await buildNpmPackage(dist, meta);
  } else {
    const files = await generatePython(doc.json, { deadline, cacheDir });
    built = await buildWheel(files, meta);
  }
  const id = newId('sdkp');
  const stored = await insertPackage({
    id,
    cacheKey,
    language,
    packageName: req.package_name,
    version: doc.version,
    filename: built.filename,
    contentType: built.contentType,
    sha256: built.sha256,
    size: built.bytes.length,
    bytes: built.bytes,
    generator: `${generator.name} ${generator.version}`,
    apiVersion: req.api_version,
    modules: req.modules,
    buildMs: Math.round(performance.now() - started),
  });
  return toPackageResult(stored, stored.id !== id);
}
