import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const USDC_PAPER = sha('USDC e-money token white paper, Circle Internet Financial Europe SAS, version 1');
const GCU_PAPER = sha('GCU asset-referenced token white paper, version 1');
const check = (body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/check', headers: t.headers, payload: body });
const codes = (r: { json(): any }) => r.json().data.compliance_issues.map((i: { code: string }) => i.code);

describe('MiCA checks', () => {
  it('USDC from its e-money institution with the registered white paper passes as an e-money token', async () => {
    const r = await check({ asset_type: 'USDC', issuer_id: 'iss_circle_eu', whitepaper_hash: USDC_PAPER.toUpperCase() });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({
      is_compliant: true,
      classification: 'e_money_token',
      issuer: { authorisation: 'e_money_institution', home_member_state: 'FR' },
      whitepaper: { id: 'wp_usdc_1', status: 'registered' },
      compliance_issues: [],
    });
  });

  it('an EMT from an issuer without an e-money or bank authorisation fails (Art. 48)', async () => {
    const r = await check({ asset_type: 'emt', issuer_id: 'iss_tether', whitepaper_hash: USDC_PAPER });
    expect(r.json().data.is_compliant).toBe(false);
    expect(codes(r)).toEqual(['ISSUER_NOT_AUTHORISED_FOR_EMT', 'WHITEPAPER_ISSUER_MISMATCH']);
  });

  it('GCU is an asset-referenced token; a withdrawn or unknown white paper fails', async () => {
    const ok = await check({ asset_type: 'GCU', issuer_id: 'iss_platform', whitepaper_hash: GCU_PAPER });
    expect(ok.json().data).toMatchObject({ is_compliant: true, classification: 'asset_referenced_token' });
    const old = await check({ asset_type: 'art', issuer_id: 'iss_platform', whitepaper_hash: sha('GCU asset-referenced token white paper, draft 0') });
    expect(codes(old)).toEqual(['WHITEPAPER_WITHDRAWN']);
    const unknown = await check({ asset_type: 'art', issuer_id: 'iss_circle_eu', whitepaper_hash: sha('something else') });
    expect(codes(unknown)).toEqual(['ISSUER_NOT_AUTHORISED_FOR_ART', 'WHITEPAPER_NOT_REGISTERED']);
    expect((await check({ asset_type: 'ETH', issuer_id: 'iss_none', whitepaper_hash: GCU_PAPER })).json().data.classification).toBe('other_crypto_asset');
  });

  it('bad input is a 4xx with a pointer and stores nothing', async () => {
    const before = (await getPool().query('SELECT count(*)::int AS n FROM mica_checks')).rows[0].n;
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ asset_type: 'USDC', issuer_id: 'iss_circle_eu', whitepaper_hash: 'abc' }, 422, 'INVALID_HASH', '/whitepaper_hash'],
      [{ asset_type: 'USDC', issuer_id: 'iss_nobody', whitepaper_hash: USDC_PAPER }, 404, 'ISSUER_NOT_FOUND', '/issuer_id'],
      [{ asset_type: 'widget', issuer_id: 'iss_circle_eu', whitepaper_hash: USDC_PAPER }, 422, 'UNKNOWN_ASSET_TYPE', '/asset_type'],
      [{ asset_type: 'EUR', issuer_id: 'iss_circle_eu', whitepaper_hash: USDC_PAPER }, 422, 'NOT_A_CRYPTO_ASSET', '/asset_type'],
    ];
    for (const [body, status, code, pointer] of cases) {
      const r = await check(body);
      expect(r.statusCode, r.body).toBe(status);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    }
    expect((await getPool().query('SELECT count(*)::int AS n FROM mica_checks')).rows[0].n).toBe(before);
  });

  it('operators maintain the register; a newly registered white paper passes; checks are read back by their owner only', async () => {
    const admin = await createTestUser({ admin: true });
    const body = { name: 'Example EMI SA', authorisation: 'e_money_institution', home_member_state: 'lu' };
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/issuers', headers: t.headers, payload: body })).statusCode).toBe(403);
    const issuer = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/issuers', headers: admin.headers, payload: body });
    expect(issuer.statusCode, issuer.body).toBe(201);
    const id = issuer.json().data.id;
    expect(issuer.json().data).toMatchObject({ authorisation: 'e_money_institution', home_member_state: 'LU' });
    const paper = { asset_code: 'USDC', issuer_id: id, sha256: sha('Example EMI e-money token white paper v1'), version: '1', published_at: '2026-11-01' };
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/whitepapers', headers: admin.headers, payload: paper })).statusCode).toBe(201);
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/whitepapers', headers: admin.headers, payload: paper });
    expect(again.json().errors[0].code).toBe('WHITEPAPER_EXISTS');
    const r = await check({ asset_type: 'emt', issuer_id: id, whitepaper_hash: paper.sha256 });
    expect(r.json().data.is_compliant).toBe(true);
    const got = await t.app.inject({ method: 'GET', url: `/api/v2/regtech/mica/checks/${r.json().data.check_id}`, headers: t.headers });
    expect(got.json().data).toMatchObject({ check_id: r.json().data.check_id, is_compliant: true, issuer: { id } });
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/regtech/mica/checks/${r.json().data.check_id}`, headers: admin.headers })).statusCode).toBe(404);
    const list = await t.app.inject({ method: 'GET', url: '/api/v2/regtech/mica/issuers', headers: t.headers });
    expect(list.json().data.map((i: { id: string }) => i.id)).toContain(id);
  });
});
