import { type SanctionsListStatus, type ScreeningResult } from '../../../domain/regtech/sanctions';
import { timestamp } from '../../schemas';

export const TAG = 'Regtech';

export const statusSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    source: { type: 'string' },
    version: { type: 'string', description: 'sha256 over the list files as loaded' },
    entry_count: { type: 'integer' },
    name_count: { type: 'integer', description: 'Primary names and aliases screened' },
    address_count: { type: ['integer', 'null'], description: 'Digital-currency addresses screened by exact match (null: loaded before addresses were read)' },
    loaded_at: timestamp,
    loaded_by: { type: ['string', 'null'] },
    age_hours: { type: 'number' },
  },
};

export const resultSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    hit: { type: 'boolean' },
    score: { type: 'number' },
    threshold: { type: 'number' },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entry_id: { type: 'integer' },
          name: { type: 'string' },
          matched_name: { type: 'string' },
          sdn_type: { type: 'string' },
          programs: { type: 'array', items: { type: 'string' } },
          score: { type: 'number' },
        },
      },
    },
  },
};

export function presentListStatus(s: SanctionsListStatus) {
  return {
    id: s.id,
    source: s.source,
    version: s.version,
    entry_count: s.entryCount,
    name_count: s.nameCount,
    address_count: s.addressCount,
    loaded_at: s.loadedAt.toISOString(),
    loaded_by: s.loadedBy,
    age_hours: Math.round(((Date.now() - s.loadedAt.getTime()) / 3_600_000) * 100) / 100,
  };
}

/** POST /sanctions/screen body (GraphQL checks its input against it too). */
export const screenBody = {
  type: 'object',
  required: ['names'],
  additionalProperties: false,
  properties: { names: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 300 } } },
};

function presentResult(r: ScreeningResult) {
  return {
    name: r.name,
    hit: r.hit,
    score: r.score,
    threshold: r.threshold,
    matches: r.matches.map((m) => ({ entry_id: m.entryId, name: m.name, matched_name: m.matchedName, sdn_type: m.sdnType, programs: m.programs, score: m.score })),
  };
}

/** A screening's answer: the list version it ran against and each name's result. */
export function presentScreening(results: ScreeningResult[]) {
  return { list_version: results[0].listVersion, results: results.map(presentResult) };
}

/** An operator's reload: the list now loaded, and whether it was loaded again. */
export function presentReload(r: { status: SanctionsListStatus; loaded: boolean }) {
  return { ...presentListStatus(r.status), loaded: r.loaded };
}
