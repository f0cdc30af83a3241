/**
 * The MiCA register operators maintain: issuers with their authorisation, and white papers by
 * SHA-256. Reading it is open to authenticated callers (it is what checks are made against);
 * writing is for platform operators.
 */
import type { Principal } from '../../auth/principal';
import { getPool } from '../../db/pool';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';

export const AUTHORISATIONS = ['credit_institution', 'e_money_institution', 'art_issuer', 'casp', 'none'] as const;

export interface MicaIssuer {
  id: string;
  name: string;
  lei: string | null;
  authorisation: string;
  homeMemberState: string | null;
  authorisedAt: string | null;
  notes: string | null;
}

export interface MicaWhitepaper {
  id: string;
  assetCode: string;
  issuerId: string;
  sha256: string;
  version: string;
  status: string;
  publishedAt: string;
}

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

export async function listIssuers(): Promise<MicaIssuer[]> {
  const { rows } = await getPool().query('SELECT * FROM mica_issuers ORDER BY id');
  return rows.map((r) => ({ id: r.id, name: r.name, lei: r.lei, authorisation: r.authorisation, homeMemberState: r.home_member_state, authorisedAt: day(r.authorised_at), notes: r.notes }));
}

export async function listWhitepapers(): Promise<MicaWhitepaper[]> {
  const { rows } = await getPool().query('SELECT * FROM mica_whitepapers ORDER BY asset_code, version');
  return rows.map((r) => ({ id: r.id, assetCode: r.asset_code, issuerId: r.issuer_id, sha256: r.sha256, version: r.version, status: r.status, publishedAt: day(r.published_at)! }));
}

function requireOperator(p: Principal): void {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators maintain the MiCA register');
}

export async function registerIssuer(
  p: Principal,
  b: { name: string; lei?: string | null; authorisation: string; home_member_state?: string | null; authorised_at?: string | null; notes?: string | null },
): Promise<MicaIssuer> {
  requireOperator(p);
  if (!(AUTHORISATIONS as readonly string[]).includes(b.authorisation)) throw new DomainError('INVALID_INPUT', `authorisation must be one of ${AUTHORISATIONS.join(', ')}`, '/authorisation');
  const id = newId('iss');
  await getPool().query(
    `INSERT INTO mica_issuers (id, name, lei, authorisation, home_member_state, authorised_at, notes) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, b.name, b.lei ?? null, b.authorisation, b.home_member_state?.toUpperCase() ?? null, b.authorised_at ?? null, b.notes ?? null],
  );
  return (await listIssuers()).find((i) => i.id === id)!;
}

export async function registerWhitepaper(
  p: Principal,
  b: { asset_code: string; issuer_id: string; sha256: string; version: string; published_at: string; status?: 'registered' | 'withdrawn' },
): Promise<MicaWhitepaper> {
  requireOperator(p);
  const hash = b.sha256.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new DomainError('INVALID_HASH', 'sha256 must be 64 hexadecimal characters', '/sha256');
  const { rows: issuer } = await getPool().query('SELECT 1 FROM mica_issuers WHERE id = $1', [b.issuer_id]);
  if (issuer.length === 0) throw new DomainError('ISSUER_NOT_FOUND', `No issuer ${b.issuer_id.slice(0, 40)} in the MiCA register`, '/issuer_id');
  const id = newId('wp');
  const { rowCount } = await getPool().query(
    `INSERT INTO mica_whitepapers (id, asset_code, issuer_id, sha256, version, status, published_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (sha256) DO NOTHING`,
    [id, b.asset_code.toUpperCase(), b.issuer_id, hash, b.version, b.status ?? 'registered', b.published_at],
  );
  if (rowCount === 0) throw new DomainError('WHITEPAPER_EXISTS', 'A white paper with this SHA-256 is already registered', '/sha256');
  return (await listWhitepapers()).find((w) => w.id === id)!;
}
