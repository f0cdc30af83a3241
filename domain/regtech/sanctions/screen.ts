/**
 * Screening names against the loaded sanctions list, as OFAC's own search does: names are
 * normalised and compared with Jaro-Winkler (@skyra/jaro-winkler), keeping each entry's best score
 * over its primary name and aliases. A score at or above SANCTIONS_MATCH_THRESHOLD is a hit.
 *
 * Normalisation: Unicode NFKD with the combining marks removed (José → jose), lower case,
 * punctuation and separators to spaces (OFAC writes "LAST, First"), single spaces. Word order:
 * each name is compared both as written and with its words sorted, so "Manuel Antonio Noriega"
 * meets "NORIEGA, Manuel Antonio".
 *
 * Speed: the list's names are normalised once per list version and kept in memory, with an index
 * from each word's first three letters to the names holding such a word. A query is scored only
 * against names sharing a word prefix with it and of similar length (blocking); a typo in the
 * first three letters of every word is therefore not found (docs/regtech.md).
 *
 * Digital-currency addresses are screened by exact match instead (screenAddress; ./addresses.ts).
 */
import { jaroWinkler } from '@skyra/jaro-winkler';
import pg from 'pg';
import { getPool, type Queryable } from '../../db/pool';
import { loadConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { normaliseAddress } from './addresses';
import { OFAC_LIST_ID } from './load';

export interface SanctionsMatch {
  entryId: number;
  name: string;
  matchedName: string;
  sdnType: string;
  programs: string[];
  score: number;
}

export interface ScreeningResult {
  name: string;
  hit: boolean;
  /** Best score over the list (0 when nothing was close enough to compare). */
  score: number;
  threshold: number;
  matches: SanctionsMatch[];
  listVersion: string;
}

export function normaliseName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const sortedWords = (n: string) => n.split(' ').sort().join(' ');
const prefix = (w: string) => w.slice(0, 3);

interface IndexedName {
  entNum: number;
  name: string;
  normal: string;
  sorted: string;
}

interface ListIndex {
  version: string;
  names: IndexedName[];
  byPrefix: Map<string, number[]>;
  entries: Map<number, { name: string; sdnType: string; programs: string[] }>;
}

/** The index of one list version, built or being built, and whether it is read through the pool. */
let cached: { version: string; index: Promise<ListIndex>; onPool: boolean; built: boolean } | undefined;

// The client may be a caller's transaction: one query at a time on it.
async function buildIndex(version: string, client: Queryable): Promise<ListIndex> {
  const { rows: names } = await client.query<{ ent_num: number; name: string }>('SELECT ent_num, name FROM sanctions_names WHERE list_id = $1', [OFAC_LIST_ID]);
  const { rows: entries } = await client.query<{ ent_num: number; name: string; sdn_type: string; programs: string[] }>(
    'SELECT ent_num, name, sdn_type, programs FROM sanctions_entries WHERE list_id = $1',
    [OFAC_LIST_ID],
  );
  const indexed: IndexedName[] = [];
  const byPrefix = new Map<string, number[]>();
  for (const r of names) {
    const normal = normaliseName(r.name);
    if (!normal) continue;
    const i = indexed.push({ entNum: r.ent_num, name: r.name, normal, sorted: sortedWords(normal) }) - 1;
    for (const p of new Set(normal.split(' ').filter((w) => w.length > 1).map(prefix))) {
      const list = byPrefix.get(p);
      if (list) list.push(i);
      else byPrefix.set(p, [i]);
    }
  }
  return { version, names: indexed, byPrefix, entries: new Map(entries.map((e) => [e.ent_num, { name: e.name, sdnType: e.sdn_type, programs: e.programs }])) };
}

/** The in-memory index of the loaded list, rebuilt when the loaded version changes. */
async function listIndex(client: Queryable): Promise<ListIndex> {
  const { rows } = await client.query<{ version: string }>('SELECT version FROM sanctions_lists WHERE id = $1', [OFAC_LIST_ID]);
  const version = rows[0]?.version;
  if (!version) throw new DomainError('SANCTIONS_LIST_UNAVAILABLE', 'No sanctions list is loaded; nothing can be screened');
  const onPool = client instanceof pg.Pool;
  const c = cached;
  if (c?.version === version) {
    // A caller holding a connection (its transaction's client) must not wait for a build queued
    // for a pooled connection: with the pool exhausted that waits on itself. It builds its own.
    if (c.built || onPool || !c.onPool) return c.index;
    return buildIndex(version, client);
  }
  const entry = { version, index: buildIndex(version, client), onPool, built: false };
  cached = entry;
  entry.index.then(
    () => {
      entry.built = true;
    },
    () => {
      if (cached === entry) cached = undefined;
    },
  );
  return entry.index;
}

/** Best score of a query against one listed name: as written, and with both sides' words sorted. */
export function nameScore(query: string, listed: { normal: string; sorted: string }): number {
  const q = normaliseName(query);
  return Math.max(jaroWinkler(q, listed.normal), jaroWinkler(sortedWords(q), listed.sorted));
}

function screenOne(index: ListIndex, name: string, threshold: number): ScreeningResult {
  const normal = normaliseName(name);
  const sorted = sortedWords(normal);
  const candidates = new Set<number>();
  for (const w of normal.split(' ')) {
    if (w.length < 2) continue;
    for (const i of index.byPrefix.get(prefix(w)) ?? []) candidates.add(i);
  }
  const best = new Map<number, { score: number; matched: string }>();
  let top = 0;
  for (const i of candidates) {
    const n = index.names[i];
    // Names of very different length cannot reach the threshold.
    if (Math.abs(n.normal.length - normal.length) > Math.max(n.normal.length, normal.length) * 0.4) continue;
    const score = Math.max(jaroWinkler(normal, n.normal), jaroWinkler(sorted, n.sorted));
    if (score > top) top = score;
    if (score >= threshold && score > (best.get(n.entNum)?.score ?? 0)) best.set(n.entNum, { score, matched: n.name });
  }
  const matches = [...best.entries()]
    .map(([entNum, b]) => {
      const e = index.entries.get(entNum)!;
      return { entryId: entNum, name: e.name, matchedName: b.matched, sdnType: e.sdnType, programs: e.programs, score: Math.round(b.score * 10_000) / 10_000 };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, 10);
  return { name, hit: matches.length > 0, score: Math.round(top * 10_000) / 10_000, threshold, matches, listVersion: index.version };
}

/**
 * Screens each name against the loaded list (SANCTIONS_LIST_UNAVAILABLE when none is loaded).
 * A caller inside a transaction passes its client: the list is read through it.
 */
export async function screenNames(names: string[], opts: { threshold?: number } = {}, client: Queryable = getPool()): Promise<ScreeningResult[]> {
  const index = await listIndex(client);
  const threshold = opts.threshold ?? Number(loadConfig().sanctionsMatchThreshold);
  return names.map((n) => screenOne(index, n, threshold));
}

export interface AddressMatch {
  entryId: number;
  /** The SDN entry's primary name; null when the entry is missing from the loaded sdn.csv. */
  name: string | null;
  currency: string;
  listedAs: string;
  sdnType: string | null;
  programs: string[];
}

export interface AddressScreeningResult {
  address: string;
  hit: boolean;
  matches: AddressMatch[];
  listVersion: string;
}

/**
 * Screens one address against the loaded list: SANCTIONS_LIST_UNAVAILABLE when no list is loaded,
 * or one loaded before its addresses were read (screening then cannot say "not listed").
 */
export async function screenAddress(address: string, client: Queryable = getPool()): Promise<AddressScreeningResult> {
  const normal = normaliseAddress(address);
  const { rows } = await client.query<{ version: string; address_count: number | null; ent_num: number | null; name: string | null; currency: string; listed_as: string; sdn_type: string | null; programs: string[] | null }>(
    `SELECT l.version, l.address_count, a.ent_num, a.name, a.currency, a.listed_as, e.sdn_type, e.programs
       FROM sanctions_lists l
       LEFT JOIN sanctions_addresses a ON a.list_id = l.id AND a.list_version = l.version AND a.address = $2
       LEFT JOIN sanctions_entries e ON e.list_id = a.list_id AND e.ent_num = a.ent_num
      WHERE l.id = $1
      ORDER BY a.ent_num, a.currency`,
    [OFAC_LIST_ID, normal],
  );
  if (!rows[0] || rows[0].address_count === null) throw new DomainError('SANCTIONS_LIST_UNAVAILABLE', 'No sanctions list with digital-currency addresses is loaded; nothing can be screened');
  const matches = rows
    .filter((r) => r.ent_num !== null)
    .map((r) => ({ entryId: r.ent_num!, name: r.name, currency: r.currency, listedAs: r.listed_as, sdnType: r.sdn_type, programs: r.programs ?? [] }));
  return { address: normal, hit: matches.length > 0, matches, listVersion: rows[0].version };
}
