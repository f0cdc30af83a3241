/**
 * The instrument register of MiFID II reports (table mifid_instruments): which platform assets are
 * reportable financial instruments, with the ISIN (RTS 22 field 41), CFI and full name a report
 * carries. An asset without a row is not reportable (422 INSTRUMENT_NOT_REPORTABLE). Seeded with
 * GCU under a sandbox ISIN (docs/regtech.md); platform operators maintain it.
 */
import type { Principal } from '../../auth/principal';
import { getAsset } from '../../assets';
import { getPool, type Queryable } from '../../db/pool';
import { DomainError } from '../../platform/errors';
import { requireIdentifier } from './identifiers';

export interface MifidInstrument {
  assetCode: string;
  isin: string;
  cfi: string;
  fullName: string;
  notes: string | null;
  updatedAt: Date;
}

type Row = { asset_code: string; isin: string; cfi: string; full_name: string; notes: string | null; updated_at: Date };
const toInstrument = (r: Row): MifidInstrument => ({ assetCode: r.asset_code, isin: r.isin, cfi: r.cfi, fullName: r.full_name, notes: r.notes, updatedAt: r.updated_at });

export async function listInstruments(): Promise<MifidInstrument[]> {
  const { rows } = await getPool().query<Row>('SELECT * FROM mifid_instruments ORDER BY asset_code');
  return rows.map(toInstrument);
}

/** The register's row for an asset, or null (the asset is not reportable). */
export async function instrumentFor(assetCode: string, c: Queryable = getPool()): Promise<MifidInstrument | null> {
  const { rows } = await c.query<Row>('SELECT * FROM mifid_instruments WHERE asset_code = $1', [assetCode]);
  return rows[0] ? toInstrument(rows[0]) : null;
}

export interface RegisterInstrumentRequest {
  asset_code: string;
  isin: string;
  cfi: string;
  full_name: string;
  notes?: string | null;
}

/** Adds or replaces an asset's row (platform operators). The ISIN's check digit and the CFI's form are checked. */
export async function registerInstrument(p: Principal, b: RegisterInstrumentRequest): Promise<MifidInstrument> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators maintain the MiFID II instrument register');
  const code = b.asset_code.trim().toUpperCase();
  const isin = requireIdentifier('ISIN', b.isin, '/isin');
  const cfi = requireIdentifier('CFI', b.cfi, '/cfi');
  if (!(await getAsset(code))) throw new DomainError('UNKNOWN_ASSET', `No asset ${code.slice(0, 12)} on this platform`, '/asset_code');
  const { rows } = await getPool().query<Row>(
    `INSERT INTO mifid_instruments (asset_code, isin, cfi, full_name, notes) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (asset_code) DO UPDATE SET isin = EXCLUDED.isin, cfi = EXCLUDED.cfi, full_name = EXCLUDED.full_name, notes = EXCLUDED.notes, updated_at = now()
     WHERE NOT EXISTS (SELECT 1 FROM mifid_instruments o WHERE o.isin = EXCLUDED.isin AND o.asset_code <> EXCLUDED.asset_code)
     RETURNING *`,
    [code, isin, cfi, b.full_name.trim(), b.notes ?? null],
  ).catch((err: { code?: string }) => {
    if (err.code === '23505') return { rows: [] as Row[] };
    throw err;
  });
  if (!rows[0]) throw new DomainError('ISIN_IN_USE', `${isin} is registered for another asset`, '/isin');
  return toInstrument(rows[0]);
}
