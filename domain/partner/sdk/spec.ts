/**
 * The OpenAPI document an SDK is generated from: the platform's own (the one served at
 * /api/openapi.json, built once per process from api/app.ts), cut down to the requested modules
 * and API version, with the error envelope every route repeats moved into one shared schema.
 *
 * Which operations an SDK for api_version V and modules M gets:
 * - routes of the requested modules (by first tag, domain/partner/modules.ts) and the platform's own
 *   routes that belong to no module (authentication, API keys, system, partner), never the
 *   operator-only Operations tag;
 * - of an operation published under /api/V/, that one; an operation published only under another
 *   version (what Versioning rule 2 puts under /api/v1, such as the AI transaction query beside the
 *   v2 AI routes) comes from the newest version that has it;
 * - unversioned paths only when no versioned twin exists (so /api/auth/* and
 *   /api/transactions/reverse stay, GET /api/accounts yields to GET /api/v2/accounts).
 * The result is a plain JSON text; its SHA-256 is part of every package's cache key.
 */
import { createHash } from 'node:crypto';
import { loadConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { moduleOfTags, type Module } from '../modules';
import type { SdkApiVersion } from './request';

interface Operation {
  tags?: string[];
  operationId?: string;
  summary?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  [k: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string }>;
  security?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, unknown> };
  [k: string]: unknown;
}

export interface SdkOperation {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
}

export interface SdkDocument {
  apiVersion: SdkApiVersion;
  modules: Module[];
  /** The filtered document as the generators read it. */
  json: string;
  sha256: string;
  title: string;
  /** The package version: the API version's major number with the document's minor and patch (v2 -> 2.0.0). */
  version: string;
  operations: SdkOperation[];
}

/** Operator-only routes: no SDK carries them. */
const EXCLUDED_TAGS = new Set(['Operations']);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const versionOf = (path: string) => /^\/api\/(v\d+)\//.exec(path)?.[1] ?? null;

let platform: Promise<OpenApiDocument> | undefined;
let source: (() => Promise<OpenApiDocument>) | undefined;

/**
 * Who builds the platform's document. The domain does not import the API: the API registers its
 * own app's document when it builds the first one (api/app.ts), and the worker registers a builder
 * of one (worker/index.ts), since SDK activities run there. The document, once built, is kept.
 */
export function provideOpenApiDocumentSource(build: () => Promise<OpenApiDocument>, opts: { ifAbsent?: boolean } = {}): void {
  if (opts.ifAbsent && source) return;
  source = build;
}

/** The platform's OpenAPI document, built once per process by the registered source. Read-only: callers clone. */
export function platformOpenApiDocument(): Promise<OpenApiDocument> {
  platform ??= (async () => {
    if (!source) throw new DomainError('SDK_GENERATOR_UNAVAILABLE', 'No OpenAPI document source is registered in this process');
    return structuredClone(await source());
  })();
  platform.catch(() => (platform = undefined));
  return platform;
}

/** v2 + "2.3.1" -> "2.3.1"; v1 + "2.3.1" -> "1.3.1". */
export function sdkVersion(apiVersion: SdkApiVersion, documentVersion: string): string {
  const [, minor = '0', patch = '0'] = documentVersion.split('.');
  return `${apiVersion.slice(1)}.${Number.parseInt(minor, 10) || 0}.${Number.parseInt(patch, 10) || 0}`;
}

/** The operations an SDK for this version and these modules carries (rules in the header). */
function selectOperations(doc: OpenApiDocument, apiVersion: SdkApiVersion, modules: readonly Module[]) {
  const all = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method], version: versionOf(path), tag: item[method].tags?.[0] ?? '' })),
  );
  const wanted = all.filter((o) => o.tag && !EXCLUDED_TAGS.has(o.tag) && ((m) => m === null || modules.includes(m))(moduleOfTags(o.op.tags)));
  // One operation under every version it is published in: the same method and path without the version.
  const operationKey = (o: { method: string; path: string }) => `${o.method} ${o.path.replace(/^\/api\/v\d+\//, '/api/')}`;
  const versionedTwins = new Set(all.filter((o) => o.version).map(operationKey));
  const versionsOf = new Map<string, string[]>();
  for (const o of wanted) if (o.version) versionsOf.set(operationKey(o), [...(versionsOf.get(operationKey(o)) ?? []), o.version]);
  const versionFor = (key: string) => {
    const versions = versionsOf.get(key) ?? [];
    return versions.includes(apiVersion) ? apiVersion : [...versions].sort().at(-1);
  };
  return wanted.filter((o) => (o.version === null ? !versionedTwins.has(`${o.method} ${o.path}`) : o.version === versionFor(operationKey(o))));
}

/** The filtered document (pure: same input, same text). serverUrl replaces the document's servers. */
export function filterOpenApiDocument(doc: OpenApiDocument, apiVersion: SdkApiVersion, modules: readonly Module[], serverUrl = ''): SdkDocument {
  const selected = selectOperations(doc, apiVersion, modules);

  // The error envelope: the response schema most 4xx/5xx answers share, kept once.
  const counts = new Map<string, number>();
  for (const { op } of selected) {
    for (const [status, r] of Object.entries(op.responses ?? {})) {
      const schema = Number(status) >= 400 ? r.content?.['application/json']?.schema : undefined;
      if (schema) counts.set(JSON.stringify(schema), (counts.get(JSON.stringify(schema)) ?? 0) + 1);
    }
  }
  const envelope = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];

  const paths: Record<string, Record<string, Operation>> = {};
  const tags: string[] = [];
  for (const { path, method, op, tag } of selected) {
    const copy = structuredClone(op);
    for (const [status, r] of Object.entries(copy.responses ?? {})) {
      const json = r.content?.['application/json'];
      if (Number(status) >= 400 && json && JSON.stringify(json.schema) === envelope) json.schema = { $ref: '#/components/schemas/ErrorEnvelope' };
    }
    (paths[path] ??= {})[method] = copy;
    if (!tags.includes(tag)) tags.push(tag);
  }

  const version = sdkVersion(apiVersion, doc.info.version);
  const scope = `This SDK covers API ${apiVersion}${modules.length ? ` (modules: ${modules.join(', ')})` : ''} and the platform's own routes (authentication, API keys).`;
  const out: OpenApiDocument = {
    openapi: doc.openapi,
    info: { title: doc.info.title, version, description: `${doc.info.description ?? ''}\n\n${scope}`.trim() },
    servers: serverUrl ? [{ url: serverUrl }] : doc.servers,
    ...(doc.security ? { security: doc.security } : {}),
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      ...doc.components,
      schemas: { ...doc.components?.schemas, ...(envelope ? { ErrorEnvelope: JSON.parse(envelope) } : {}) },
    },
  };
  const json = JSON.stringify(out);
  return {
    apiVersion,
    modules: [...modules],
    json,
    sha256: createHash('sha256').update(json).digest('hex'),
    title: doc.info.title,
    version,
    operations: selected.map(({ path, method, op, tag }) => ({ operationId: op.operationId ?? '', method: method.toUpperCase(), path, tag, summary: op.summary ?? '' })),
  };
}

const documents = new Map<string, Promise<SdkDocument>>();

/** The document for this version and these modules, computed once per process and setting (PUBLIC_URL). */
export function sdkDocument(apiVersion: SdkApiVersion, modules: readonly Module[]): Promise<SdkDocument> {
  const serverUrl = loadConfig().publicUrl.replace(/\/+$/, '');
  const key = `${apiVersion}|${modules.join(',')}|${serverUrl}`;
  let doc = documents.get(key);
  if (!doc) {
    doc = platformOpenApiDocument().then((d) => filterOpenApiDocument(d, apiVersion, modules, serverUrl));
    doc.catch(() => documents.delete(key));
    documents.set(key, doc);
  }
  return doc;
}
