/**
 * SDK generation for partners (issue 18; docs/partner.md "SDK generation"): TypeScript and Python
 * client packages generated from the platform's own OpenAPI document, as a Temporal workflow
 * (workflows/sdk-generation.ts), cached by content and served through signed, expiring links.
 *
 * The partner route (POST /partner/sdk/generate) calls requestSdkGeneration, then may wait with
 * waitForSdkGeneration (about a minute) and otherwise answer 202 with the generation id, which
 * getSdkGeneration reads later. When every package of a request was built before (same cache key),
 * the generation completes at once, without a workflow.
 */
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { getTemporalClient } from '../../temporal/client';
import { loadConfig } from '../../platform/config';
import { SA } from '../../temporal/search-attributes';
import { cacheKeysOf } from './build';
import { signDownloadLink, verifyDownloadLink } from './links';
import { normalizeSdkRequest, type SdkBranding, type SdkLanguage, type SdkOptions } from './request';
import {
  findGeneration,
  finishGeneration,
  insertGeneration,
  packagesByCacheKey,
  packageWithBytes,
  toPackageResult,
  type SdkGenerationRecord,
  type SdkPackageResult,
} from './store';

export { SDK_API_VERSIONS, SDK_GENERATE_BODY_SCHEMA, SDK_LANGUAGES, normalizeSdkRequest, type SdkLanguage, type SdkRequest } from './request';
export { signDownloadLink, verifyDownloadLink } from './links';
export type { SdkPackageResult } from './store';

export const sdkGenerationWorkflowId = (generationId: string) => `sdk-generation-${generationId}`;

export interface SdkPackageView {
  package_id: string;
  language: SdkLanguage;
  version: string;
  package_name: string;
  filename: string;
  download_url: string;
  expires_at: string;
  install_command: string;
  sha256: string;
  size: number;
  cached: boolean;
}

export interface SdkGenerationView {
  generation_id: string;
  status: 'pending' | 'completed' | 'failed';
  api_version: string;
  languages: SdkLanguage[];
  modules: string[];
  package_name: string;
  branding: SdkBranding | null;
  options: SdkOptions;
  packages: SdkPackageView[];
  error: { code: string; message: string } | null;
  created_at: string;
  completed_at: string | null;
}

function installCommand(p: SdkPackageResult, url: string): string {
  const quoted = `'${url.replaceAll("'", "'\\''")}'`;
  // npm takes a tarball URL as is; pip needs the file under its wheel name.
  return p.language === 'typescript' ? `npm install ${quoted}` : `curl -fsSL -o ${p.filename} ${quoted} && pip install ./${p.filename}`;
}

/** The generation as the API shows it; each package with a fresh signed link (baseUrl: scheme and host of the request). */
export function presentSdkGeneration(g: SdkGenerationRecord, baseUrl?: string): SdkGenerationView {
  const packages = g.result && 'packages' in g.result ? g.result.packages : [];
  const error = g.result && 'error' in g.result ? g.result.error : null;
  return {
    generation_id: g.id,
    status: g.status,
    api_version: g.request.api_version,
    languages: g.request.languages,
    modules: g.request.modules,
    package_name: g.request.package_name,
    branding: g.request.branding,
    options: g.request.options,
    packages: packages.map((p) => {
      const link = signDownloadLink(p.package_id, { baseUrl });
      return {
        package_id: p.package_id,
        language: p.language,
        version: p.version,
        package_name: p.package_name,
        filename: p.filename,
        download_url: link.url,
        expires_at: link.expiresAt.toISOString(),
        install_command: installCommand(p, link.url),
        sha256: p.sha256,
        size: p.size,
        cached: p.cached,
      };
    }),
    error,
    created_at: g.createdAt.toISOString(),
    completed_at: g.completedAt?.toISOString() ?? null,
  };
}

/** Completes a pending generation with its packages and writes sdk.generated in the same transaction; idempotent. */
async function recordCompletion(c: Queryable, g: SdkGenerationRecord, packages: SdkPackageResult[]): Promise<SdkGenerationRecord> {
  const done = await finishGeneration(g.id, 'completed', { packages }, c);
  if (!done) return (await findGeneration(g.id, undefined, c))!;
  await writeOutboxEvent(c, {
    type: 'sdk.generated',
    environment: done.environment,
    userId: done.userId,
    aggregateType: 'sdk_generation',
    aggregateId: done.id,
    data: {
      generation_id: done.id,
      partner_id: done.partnerId,
      api_version: done.request.api_version,
      languages: done.request.languages,
      modules: done.request.modules,
      cached: packages.every((p) => p.cached),
      packages,
      completed_at: done.completedAt!.toISOString(),
    },
  });
  return done;
}

export interface SdkGenerationInput {
  userId: string;
  environment: Environment;
  /** The partner the request came for (X-Partner-Key), when there is one. */
  partnerId?: string | null;
  /** The request body, in either form of the spec (domain/partner/sdk/request.ts). */
  body: unknown;
  /** Scheme and host the download links start with (e.g. https://api.example.com); PUBLIC_URL otherwise. */
  baseUrl?: string;
}

/**
 * Records a generation and starts its workflow (a cache hit for every language completes it at
 * once). Refusals: 422 with a pointer (request.ts); 503 WORKFLOW_UNAVAILABLE when Temporal is
 * unreachable (the generation is recorded as failed).
 */
export async function requestSdkGeneration(input: SdkGenerationInput): Promise<SdkGenerationView> {
  const request = normalizeSdkRequest(input.body);
  const keys = await cacheKeysOf(request);
  const built = await packagesByCacheKey([...keys.values()]);
  const id = newId('sdkg');
  const base = { id, partnerId: input.partnerId ?? null, environment: input.environment, userId: input.userId, request };

  if (request.languages.every((l) => built.has(keys.get(l)!))) {
    const packages = request.languages.map((l) => toPackageResult(built.get(keys.get(l)!)!, true));
    const done = await withTransaction(async (c) => recordCompletion(c, await insertGeneration({ ...base, workflowId: null }, c), packages));
    return presentSdkGeneration(done, input.baseUrl);
  }

  const workflowId = sdkGenerationWorkflowId(id);
  const g = await insertGeneration({ ...base, workflowId });
  try {
    const client = await getTemporalClient();
    await client.workflow.start('sdkGenerationWorkflow', {
      taskQueue: loadConfig().taskQueue,
      workflowId,
      args: [{ generationId: id, languages: request.languages, generatorTimeoutSeconds: loadConfig().sdkGeneratorTimeoutSeconds }],
      typedSearchAttributes: [
        { key: SA.businessStatus, value: 'generating' },
        { key: SA.environment, value: input.environment },
        { key: SA.userId, value: input.userId },
      ],
    });
  } catch (err) {
    await failSdkGeneration(id, { code: 'WORKFLOW_UNAVAILABLE', message: 'The generation workflow could not be started' });
    throw new DomainError('WORKFLOW_UNAVAILABLE', `SDK generation could not be started: ${(err as Error).message}`);
  }
  return presentSdkGeneration(g, input.baseUrl);
}

export interface SdkGenerationScope {
  id: string;
  userId: string;
  environment: Environment;
  partnerId?: string | null;
  baseUrl?: string;
}

async function scoped(s: SdkGenerationScope): Promise<SdkGenerationRecord> {
  const g = await findGeneration(s.id, s);
  if (!g) throw new DomainError('SDK_GENERATION_NOT_FOUND', 'SDK generation not found');
  return g;
}

/** The caller's generation (same user and environment, and partner when given); 404 otherwise. */
export async function getSdkGeneration(s: SdkGenerationScope): Promise<SdkGenerationView> {
  return presentSdkGeneration(await scoped(s), s.baseUrl);
}

/**
 * Waits up to timeoutMs for a pending generation's workflow, then returns the generation as it
 * then is: completed or failed, or still pending (the route answers 202 and the caller comes back).
 */
export async function waitForSdkGeneration(s: SdkGenerationScope, timeoutMs = 60_000): Promise<SdkGenerationView> {
  const g = await scoped(s);
  if (g.status === 'pending' && g.workflowId) {
    try {
      const client = await getTemporalClient();
      await client.withDeadline(Date.now() + timeoutMs, () => client.workflow.getHandle(g.workflowId!).result());
    } catch {
      // Past the deadline, failed, or Temporal unreachable: the record says which.
    }
    return getSdkGeneration(s);
  }
  return presentSdkGeneration(g, s.baseUrl);
}

/** Activity: the workflow's packages are built; record them and emit sdk.generated (idempotent). */
export async function completeSdkGeneration(generationId: string, packages: SdkPackageResult[]): Promise<void> {
  await withTransaction(async (c) => {
    const g = await findGeneration(generationId, undefined, c);
    if (!g) throw new Error(`SDK generation ${generationId} not found`);
    await recordCompletion(c, g, packages);
  });
}

/** Activity (and start failure): the generation failed; a recorded outcome is left as it is. */
export async function failSdkGeneration(generationId: string, error: { code: string; message: string }): Promise<void> {
  await finishGeneration(generationId, 'failed', { error: { code: error.code, message: error.message.slice(0, 2000) } }, getPool());
}

/** The download route: a package whose link holds (403 LINK_INVALID, 410 LINK_EXPIRED, 404). */
export async function sdkPackageDownload(packageId: string, expires: number, signature: string) {
  verifyDownloadLink(packageId, expires, signature);
  const p = await packageWithBytes(packageId);
  if (!p) throw new DomainError('SDK_PACKAGE_NOT_FOUND', 'SDK package not found');
  return p;
}

const str = { type: 'string' };
/** The generation as JSON Schema (the data of the partner route's answers). */
export const SDK_GENERATION_SCHEMA = {
  type: 'object',
  properties: {
    generation_id: str,
    status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
    api_version: str,
    languages: { type: 'array', items: str },
    modules: { type: 'array', items: str },
    package_name: str,
    branding: { type: ['object', 'null'], properties: { name: str, color: str } },
    options: { type: 'object', properties: { include_types: { type: 'boolean' }, include_examples: { type: 'boolean' }, include_tests: { type: 'boolean' } } },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          package_id: str,
          language: str,
          version: str,
          package_name: str,
          filename: str,
          download_url: { type: 'string', description: 'Signed link, valid until expires_at (GET, no credentials)' },
          expires_at: { type: 'string', format: 'date-time' },
          install_command: str,
          sha256: str,
          size: { type: 'integer' },
          cached: { type: 'boolean' },
        },
      },
    },
    error: { type: ['object', 'null'], properties: { code: str, message: str } },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;
