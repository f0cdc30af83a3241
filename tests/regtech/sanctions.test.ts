import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { ensureSanctionsList, normaliseName, screenNames } from '../../domain/regtech/sanctions';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await ensureSanctionsList();
}, 120_000);
afterAll(async () => t.close());

const screen = (names: unknown, headers = t.headers) => t.app.inject({ method: 'POST', url: '/api/v2/regtech/sanctions/screen', headers, payload: { names } as object });

describe('the OFAC list', () => {
  it('is loaded from the official files once per version, with counts and a sha256 version', async () => {
    const { rows } = await getPool().query('SELECT version, entry_count, name_count FROM sanctions_lists');
    expect(rows).toHaveLength(1);
    expect(rows[0].version).toMatch(/^[0-9a-f]{64}$/);
    // sdn.csv has 7,378 records (../shared/reference/SOURCES.md) and alt.csv adds aliases.
    expect(rows[0].entry_count).toBeGreaterThan(7_300);
    expect(rows[0].name_count).toBeGreaterThan(rows[0].entry_count + 9_000);
    expect((await ensureSanctionsList()).loaded).toBe(false);
    const status = await t.app.inject({ method: 'GET', url: '/api/v2/regtech/sanctions/status', headers: t.headers });
    expect(status.json().data).toMatchObject({ version: rows[0].version, entry_count: rows[0].entry_count });
  });

  it('normalises case, diacritics and punctuation', () => {
    expect(normaliseName('  CRUZ, Juan M. de la ')).toBe('cruz juan m de la');
    expect(normaliseName('José Gutiérrez-Reyes')).toBe('jose gutierrez reyes');
  });
});

describe('screening', () => {
  it('hits exact SDN names, aliases, diacritic variants and swapped word order from the real list', async () => {
    const r = await screenNames([
      'NORIEGA, Manuel Antonio', // primary name as listed
      'Manuel Antonio Noriega', // word order swapped
      'BANCO NACIONAL DE CUBA',
      'National Bank of Cuba', // alias (alt.csv)
      'José Gutiérrez Reyes', // diacritics added to GUTIERREZ REYES, Jose
      'Aerocaribbean Airlines',
    ]);
    for (const x of r) expect(x.hit, `${x.name} scored ${x.score}`).toBe(true);
    expect(r[0].matches[0]).toMatchObject({ entryId: 1572, name: 'NORIEGA, Manuel Antonio', sdnType: 'individual' });
    expect(r[1].matches[0].entryId).toBe(1572);
    expect(r[3].matches[0]).toMatchObject({ entryId: 306, matchedName: 'NATIONAL BANK OF CUBA' });
    expect(r[4].matches[0].entryId).toBe(899);
  });

  it('a sample of real entries all hit themselves and their reordered form', async () => {
    const { rows } = await getPool().query<{ name: string; sdn_type: string }>(
      `SELECT name, sdn_type FROM sanctions_entries WHERE sdn_type IN ('individual', '-0-', 'entity', 'vessel') ORDER BY ent_num LIMIT 300`,
    );
    const names = rows.map((r) => r.name);
    const reordered = names.map((n) => n.split(/,\s*/).reverse().join(' '));
    const results = await screenNames([...names, ...reordered]);
    const misses = results.filter((x) => !x.hit).map((x) => `${x.name} (${x.score})`);
    expect(misses).toEqual([]);
  });

  it('ordinary names do not hit', async () => {
    const ordinary = ['John Smith', 'Maria Garcia', 'Acme Trading GmbH', 'Emma Johansson', 'Li Wei', 'Oliver Brown', 'Sophie Martin', 'Northwind Traders Ltd', 'Anna Schmidt', 'Contoso Bank plc'];
    const r = await screenNames(ordinary);
    expect(r.filter((x) => x.hit).map((x) => `${x.name} → ${x.matches[0]?.name} (${x.score})`)).toEqual([]);
  });

  it('over HTTP: results with scores and the list version; bad input is a 4xx; reload is for operators', async () => {
    const r = await screen(['Manuel Antonio Noriega', 'John Smith']);
    expect(r.statusCode, r.body).toBe(200);
    const [hit, clear] = r.json().data.results;
    expect(hit).toMatchObject({ name: 'Manuel Antonio Noriega', hit: true });
    expect(hit.matches[0]).toMatchObject({ entry_id: 1572, sdn_type: 'individual', programs: ['CUBA'] });
    expect(clear).toMatchObject({ hit: false, matches: [] });
    expect(r.json().data.list_version).toMatch(/^[0-9a-f]{64}$/);
    expect((await screen([])).statusCode).toBe(422);
    expect((await screen(['  '])).statusCode).toBe(422);
    expect((await screen('x')).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/regtech/sanctions/reload', headers: t.headers })).statusCode).toBe(403);
    const admin = await createTestUser({ admin: true });
    const reload = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/sanctions/reload', headers: admin.headers });
    expect(reload.statusCode, reload.body).toBe(200);
    expect(reload.json().data).toMatchObject({ loaded: true, loaded_by: admin.userId });
  });
});
