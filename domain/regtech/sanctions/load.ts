/**
 * Loading the OFAC SDN list (official CSV files: sdn.csv primary names, alt.csv aliases,
 * sdn_comments.csv the remarks too long for sdn.csv) into the database, with the digital-currency
 * addresses the remarks list (./addresses.ts). The version is the sha256 over the files: start-up
 * loads only when it differs from the loaded one (or the loaded one predates addresses), an
 * operator can force a reload, and either way it is one transaction, so screening never sees half
 * a list.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { loadConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { listedAddresses } from './addresses';

export const OFAC_LIST_ID = 'ofac_sdn';

export interface SanctionsListStatus {
  id: string;
  source: string;
  version: string;
  entryCount: number;
  nameCount: number;
  /** Digital-currency addresses; null for a list loaded before addresses were read. */
  addressCount: number | null;
  loadedAt: Date;
  loadedBy: string | null;
}

/** OFAC writes "-0- " for an empty field; the files end with an EOF byte (0x1A). */
const value = (v: string | undefined): string | null => {
  const t = (v ?? '').trim();
  return t === '' || t === '-0-' ? null : t;
};

function rows(text: string): string[][] {
  return parse(text.replace(/\u001a\s*$/, ''), { relax_quotes: true, relax_column_count: true, skip_empty_lines: true, trim: false }) as string[][];
}

interface ParsedList {
  version: string;
  entries: Array<{ ent_num: number; name: string; sdn_type: string; programs: string[]; remarks: string | null }>;
  names: Array<{ ent_num: number; alt_num: number; name: string; kind: string }>;
  addresses: Array<{ ent_num: number; name: string | null; address: string; currency: string; listed_as: string }>;
}

async function readOptional(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export async function readOfacFiles(dir: string): Promise<ParsedList> {
  let sdn: Buffer;
  let alt: Buffer;
  let comments: Buffer | null;
  try {
    [sdn, alt, comments] = await Promise.all([readFile(path.join(dir, 'sdn.csv')), readFile(path.join(dir, 'alt.csv')), readOptional(path.join(dir, 'sdn_comments.csv'))]);
  } catch (err) {
    throw new DomainError('SANCTIONS_LIST_UNAVAILABLE', `The OFAC files could not be read from ${dir}: ${(err as Error).message}`);
  }
  const hash = createHash('sha256').update(sdn).update(alt);
  if (comments) hash.update(comments);
  const version = hash.digest('hex');
  // A remark longer than sdn.csv's field goes on in sdn_comments.csv, cut mid-word: joined as is.
  const overflow = new Map<number, string>();
  for (const r of comments ? rows(comments.toString('latin1')) : []) {
    const ent = Number.parseInt(r[0], 10);
    if (Number.isInteger(ent) && r[1]) overflow.set(ent, (overflow.get(ent) ?? '') + r[1]);
  }
  const entries: ParsedList['entries'] = [];
  const names: ParsedList['names'] = [];
  const addresses: ParsedList['addresses'] = [];
  for (const r of rows(sdn.toString('latin1'))) {
    const ent = Number.parseInt(r[0], 10);
    const name = value(r[1]);
    if (!Number.isInteger(ent) || !name) continue;
    const programs = (value(r[3]) ?? '').split(/\]\s*\[|;/).map((p) => p.replace(/[[\]]/g, '').trim()).filter(Boolean);
    const remarks = value((value(r[11]) === null ? '' : r[11]) + (overflow.get(ent) ?? ''));
    entries.push({ ent_num: ent, name, sdn_type: value(r[2]) ?? 'entity', programs, remarks });
    names.push({ ent_num: ent, alt_num: 0, name, kind: 'primary' });
    for (const a of listedAddresses(remarks)) addresses.push({ ent_num: ent, name, address: a.address, currency: a.currency, listed_as: a.listedAs });
  }
  // Remarks of an entry this sdn.csv lacks (files of different dates): OFAC listed the addresses all
  // the same, so they are screened, without a name. The cut-off start cannot be read and is skipped.
  const known = new Set(entries.map((e) => e.ent_num));
  for (const [ent, text] of overflow) {
    if (known.has(ent)) continue;
    for (const a of listedAddresses(text)) addresses.push({ ent_num: ent, name: null, address: a.address, currency: a.currency, listed_as: a.listedAs });
  }
  for (const r of rows(alt.toString('latin1'))) {
    const ent = Number.parseInt(r[0], 10);
    const alt = Number.parseInt(r[1], 10);
    const name = value(r[3]);
    const kind = (value(r[2]) ?? 'aka').toLowerCase();
    if (!known.has(ent) || !Number.isInteger(alt) || !name) continue;
    names.push({ ent_num: ent, alt_num: alt, name, kind: ['aka', 'fka', 'nka'].includes(kind) ? kind : 'aka' });
  }
  return { version, entries, names, addresses };
}

export async function sanctionsListStatus(client: Queryable = getPool()): Promise<SanctionsListStatus | null> {
  const { rows: r } = await client.query<{ id: string; source: string; version: string; entry_count: number; name_count: number; address_count: number | null; loaded_at: Date; loaded_by: string | null }>(
    'SELECT * FROM sanctions_lists WHERE id = $1',
    [OFAC_LIST_ID],
  );
  const x = r[0];
  return x ? { id: x.id, source: x.source, version: x.version, entryCount: x.entry_count, nameCount: x.name_count, addressCount: x.address_count, loadedAt: x.loaded_at, loadedBy: x.loaded_by } : null;
}

/**
 * Loads the OFAC files when their version differs from the loaded one (or always, with force).
 * Returns the list's status and whether anything was loaded.
 */
export async function ensureSanctionsList(opts: { dir?: string; force?: boolean; loadedBy?: string } = {}): Promise<{ status: SanctionsListStatus; loaded: boolean }> {
  const dir = opts.dir ?? loadConfig().sanctionsDir;
  const list = await readOfacFiles(dir);
  const loaded = await withTransaction(async (c) => {
    // One loader at a time (several workers start together).
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('sanctions-list'))`);
    const current = await sanctionsListStatus(c);
    if (current && current.version === list.version && current.addressCount !== null && !opts.force) return false;
    await c.query('DELETE FROM sanctions_addresses WHERE list_id = $1', [OFAC_LIST_ID]);
    await c.query('DELETE FROM sanctions_names WHERE list_id = $1', [OFAC_LIST_ID]);
    await c.query('DELETE FROM sanctions_entries WHERE list_id = $1', [OFAC_LIST_ID]);
    await c.query(
      `INSERT INTO sanctions_lists (id, source, version, entry_count, name_count, address_count, loaded_at, loaded_by) VALUES ($1, $2, $3, $4, $5, $6, now(), $7)
       ON CONFLICT (id) DO UPDATE SET source = excluded.source, version = excluded.version, entry_count = excluded.entry_count,
         name_count = excluded.name_count, address_count = excluded.address_count, loaded_at = now(), loaded_by = excluded.loaded_by`,
      [OFAC_LIST_ID, `OFAC SDN (${path.basename(dir)})`, list.version, list.entries.length, list.names.length, list.addresses.length, opts.loadedBy ?? null],
    );
    await c.query(
      `INSERT INTO sanctions_entries (list_id, ent_num, name, sdn_type, programs, remarks)
       SELECT $1, x.ent_num, x.name, x.sdn_type, ARRAY(SELECT jsonb_array_elements_text(x.programs)), x.remarks
         FROM jsonb_to_recordset($2::jsonb) x(ent_num int, name text, sdn_type text, programs jsonb, remarks text)`,
      [OFAC_LIST_ID, JSON.stringify(list.entries)],
    );
    await c.query(
      `INSERT INTO sanctions_names (list_id, ent_num, alt_num, name, kind)
       SELECT $1, x.ent_num, x.alt_num, x.name, x.kind FROM jsonb_to_recordset($2::jsonb) x(ent_num int, alt_num int, name text, kind text)
       ON CONFLICT DO NOTHING`,
      [OFAC_LIST_ID, JSON.stringify(list.names)],
    );
    await c.query(
      `INSERT INTO sanctions_addresses (list_id, list_version, address, currency, listed_as, ent_num, name)
       SELECT $1, $2, x.address, x.currency, x.listed_as, x.ent_num, x.name
         FROM jsonb_to_recordset($3::jsonb) x(ent_num int, name text, address text, currency text, listed_as text)
       ON CONFLICT DO NOTHING`,
      [OFAC_LIST_ID, list.version, JSON.stringify(list.addresses)],
    );
    return true;
  });
  return { status: (await sanctionsListStatus())!, loaded };
}
