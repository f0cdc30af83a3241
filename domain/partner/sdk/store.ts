/**
 * The tables of SDK generation (prisma/migrations/20261125050000_sdk): sdk_packages, content-addressed
 * by cache_key and shared by every caller, and sdk_generations, one per request. Functions take a
 * Queryable last so callers compose transactions.
 */
import { getPool, type Queryable } from '../../db/pool';
import type { Environment } from '../../platform/environment';
import type { SdkLanguage, SdkRequest } from './request';

export interface SdkPackageRecord {
  id: string;
  cacheKey: string;
  language: SdkLanguage;
  packageName: string;
  version: string;
  filename: string;
  contentType: 'application/gzip' | 'application/zip';
  sha256: string;
  size: number;
  generator: string;
  apiVersion: string;
  modules: string[];
  buildMs: number;
  createdAt: Date;
}

/** A package as a generation's result lists it (sdk_generations.result.packages[]). */
export interface SdkPackageResult {
  package_id: string;
  language: SdkLanguage;
  package_name: string;
  version: string;
  filename: string;
  sha256: string;
  size: number;
  /** Built before this generation asked for it (same cache key). */
  cached: boolean;
}

export type SdkGenerationStatus = 'pending' | 'completed' | 'failed';

export interface SdkGenerationRecord {
  id: string;
  partnerId: string | null;
  environment: Environment;
  userId: string;
  request: SdkRequest;
  status: SdkGenerationStatus;
  result: { packages: SdkPackageResult[] } | { error: { code: string; message: string } } | null;
  workflowId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

const PACKAGE_COLUMNS = `id, cache_key AS "cacheKey", language, package_name AS "packageName", version, filename,
  content_type AS "contentType", sha256, size, generator, api_version AS "apiVersion", modules, build_ms AS "buildMs", created_at AS "createdAt"`;
const GENERATION_COLUMNS = `id, partner_id AS "partnerId", environment, user_id AS "userId", request, status, result,
  workflow_id AS "workflowId", created_at AS "createdAt", completed_at AS "completedAt"`;

export function toPackageResult(p: SdkPackageRecord, cached: boolean): SdkPackageResult {
  return { package_id: p.id, language: p.language, package_name: p.packageName, version: p.version, filename: p.filename, sha256: p.sha256, size: p.size, cached };
}

/** The packages already built under these cache keys. */
export async function packagesByCacheKey(keys: string[], c: Queryable = getPool()): Promise<Map<string, SdkPackageRecord>> {
  const { rows } = await c.query<SdkPackageRecord>(`SELECT ${PACKAGE_COLUMNS} FROM sdk_packages WHERE cache_key = ANY($1::text[])`, [keys]);
  return new Map(rows.map((r) => [r.cacheKey, r]));
}

/** Stores a built package; when another build stored the same cache key first, returns that one. */
export async function insertPackage(p: Omit<SdkPackageRecord, 'createdAt'> & { bytes: Buffer }, c: Queryable = getPool()): Promise<SdkPackageRecord> {
  const { rows } = await c.query<SdkPackageRecord>(
    `INSERT INTO sdk_packages (id, cache_key, language, package_name, version, filename, content_type, sha256, size, bytes, generator, api_version, modules, build_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (cache_key) DO NOTHING RETURNING ${PACKAGE_COLUMNS}`,
    [p.id, p.cacheKey, p.language, p.packageName, p.version, p.filename, p.contentType, p.sha256, p.size, p.bytes, p.generator, p.apiVersion, p.modules, p.buildMs],
  );
  if (rows[0]) return rows[0];
  return (await packagesByCacheKey([p.cacheKey], c)).get(p.cacheKey)!;
}

/** A package and its bytes, for the download route. */
export async function packageWithBytes(id: string, c: Queryable = getPool()): Promise<(SdkPackageRecord & { bytes: Buffer }) | null> {
  const { rows } = await c.query<SdkPackageRecord & { bytes: Buffer }>(`SELECT ${PACKAGE_COLUMNS}, bytes FROM sdk_packages WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function insertGeneration(
  g: Pick<SdkGenerationRecord, 'id' | 'partnerId' | 'environment' | 'userId' | 'request' | 'workflowId'>,
  c: Queryable = getPool(),
): Promise<SdkGenerationRecord> {
  const { rows } = await c.query<SdkGenerationRecord>(
    `INSERT INTO sdk_generations (id, partner_id, environment, user_id, request, status, workflow_id)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING ${GENERATION_COLUMNS}`,
    [g.id, g.partnerId, g.environment, g.userId, JSON.stringify(g.request), g.workflowId],
  );
  return rows[0];
}

/** Any generation by id (activities), or only the caller's: same user and environment, and partner when given. */
export async function findGeneration(
  id: string,
  scope?: { userId: string; environment: Environment; partnerId?: string | null },
  c: Queryable = getPool(),
): Promise<SdkGenerationRecord | null> {
  const { rows } = scope
    ? await c.query<SdkGenerationRecord>(
        `SELECT ${GENERATION_COLUMNS} FROM sdk_generations
          WHERE id = $1 AND user_id = $2 AND environment = $3 AND ($4::text IS NULL OR partner_id = $4)`,
        [id, scope.userId, scope.environment, scope.partnerId ?? null],
      )
    : await c.query<SdkGenerationRecord>(`SELECT ${GENERATION_COLUMNS} FROM sdk_generations WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Records the outcome of a pending generation; null when it was not pending (already recorded). */
export async function finishGeneration(
  id: string,
  status: Exclude<SdkGenerationStatus, 'pending'>,
  result: NonNullable<SdkGenerationRecord['result']>,
  c: Queryable,
): Promise<SdkGenerationRecord | null> {
  const { rows } = await c.query<SdkGenerationRecord>(
    `UPDATE sdk_generations SET status = $2, result = $3, completed_at = now()
      WHERE id = $1 AND status = 'pending' RETURNING ${GENERATION_COLUMNS}`,
    [id, status, JSON.stringify(result)],
  );
  return rows[0] ?? null;
}
