/**
 * Passkeys end to end through the HTTP API, with a software authenticator (./authenticator.ts)
 * producing real ES256 credentials, attestation objects and assertions: registration, listing and
 * removal; sign-in into a biometric session; and every tampered or replayed assertion refused with
 * the same 401. Where a refusal's reason matters (that a case fails for the reason it tests), the
 * domain check is asked first: a refusal spends nothing, so the same body then goes through HTTP.
 */
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Principal } from '../../domain/auth/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateAccessToken, startPasskeySession } from '../../domain/auth/sessions';
import { getPool } from '../../domain/db/pool';
import { verifyPasskeyAssertion } from '../../domain/mobile/passkey-sign-in';
import { registerPasskey } from '../../domain/mobile/passkeys';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { SoftwareAuthenticator, verifyBody, type Tamper } from './authenticator';

const ANDROID_ORIGIN = `android:apk-key-hash:${Buffer.alloc(32, 7).toString('base64url')}`;
const BASE = '/api/v2/mobile/auth';

let t: TestApp;
let alice: TestUser;
let phone: SoftwareAuthenticator;
let alicePasskey: { id: string; credential_id: string };

type Json = Record<string, any>;
const post = (url: string, payload?: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });

/** A login session's bearer header: passkeys are registered in a login session, never with an API key. */
const sessions = new Map<string, Record<string, string>>();
async function session(user: TestUser): Promise<Record<string, string>> {
  let h = sessions.get(user.userId);
  if (!h) {
    const r = await post('/api/auth/login', { email: user.email, password: user.password });
    expect(r.statusCode, r.body).toBe(200);
    h = { authorization: `Bearer ${r.json().data.access_token}` };
    sessions.set(user.userId, h);
  }
  return h;
}

async function registrationOptions(user: TestUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const r = await post(`${BASE}/passkeys/registration/options`, undefined, await session(user));
  expect(r.statusCode, r.body).toBe(200);
  return r.json().data;
}

async function register(user: TestUser, device: SoftwareAuthenticator, name?: string, tamper: Tamper = {}) {
  const options = await registrationOptions(user);
  return post(`${BASE}/passkeys/registration/verify`, { response: device.create(options, tamper), ...(name ? { name } : {}) }, await session(user));
}

async function signInOptions(email?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const r = await post(`${BASE}/passkey/options`, email === undefined ? {} : { email });
  expect(r.statusCode, r.body).toBe(200);
  return r.json().data;
}

const verify = (body: object) => post(`${BASE}/passkey/verify`, body);

/** The refusal every case must produce: 401 with exactly this error list (request ids aside). */
let refusal: Json[];
async function expectRefused(body: Json, reason?: RegExp) {
  if (reason) {
    const check = await verifyPasskeyAssertion(body as never);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  }
  const r = await verify(body);
  expect(r.statusCode, r.body).toBe(401);
  const json = r.json();
  expect(json.data).toBeNull();
  expect(json.errors).toEqual(refusal);
  expect(Object.keys(json).sort()).toEqual(['data', 'errors', 'meta']);
  expect(Object.keys(json.meta)).toEqual(['request_id']);
}

beforeAll(async () => {
  process.env.WEBAUTHN_RP_ID = 'localhost';
  process.env.WEBAUTHN_ORIGINS = `http://localhost:3000,${ANDROID_ORIGIN}`;
  delete process.env.WEBAUTHN_REQUIRE_UV;
  delete process.env.WEBAUTHN_CHALLENGE_TTL_SECONDS;
  t = await createTestApp();
  alice = t.user;
  phone = new SoftwareAuthenticator({ origin: ANDROID_ORIGIN });
  refusal = [{ status: '401', code: 'PASSKEY_VERIFICATION_FAILED', title: 'Unauthorized', detail: 'The passkey could not be verified' }];
});

afterAll(async () => t?.close());

describe('registration', () => {
  it('options: a fresh challenge, RP, random user handle, residentKey preferred, UV required, attestation none', async () => {
    const o = await registrationOptions(alice);
    expect(o.rp).toEqual({ name: 'Multi-Asset Banking Platform', id: 'localhost' });
    expect(o.user.name).toBe(alice.email);
    expect(Buffer.from(o.user.id, 'base64url')).toHaveLength(32);
    expect(o.user.id).not.toContain(alice.userId);
    expect(o.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(o.pubKeyCredParams.map((p) => p.alg)).toContain(-7);
    expect(o.authenticatorSelection).toMatchObject({ residentKey: 'preferred', userVerification: 'required', requireResidentKey: false });
    expect(o.attestation).toBe('none');
    expect(o.timeout).toBe(300_000);
    expect(o.excludeCredentials).toEqual([]);
    const again = await registrationOptions(alice);
    expect(again.challenge).not.toBe(o.challenge);
    const { rows } = await getPool().query(`SELECT purpose, user_id, expires_at - created_at AS ttl FROM webauthn_challenges WHERE challenge = $1`, [o.challenge]);
    expect(rows[0]).toMatchObject({ purpose: 'registration', user_id: alice.userId });
  });

  it('verifies the attestation and stores the credential (COSE key, counter, transports, backup flags)', async () => {
    const r = await register(alice, phone, 'Pixel 9');
    expect(r.statusCode, r.body).toBe(201);
    const k = r.json().data;
    expect(k).toMatchObject({ name: 'Pixel 9', transports: ['internal', 'hybrid'], device_type: 'multiDevice', backed_up: true, last_used_at: null });
    expect(k.id).toMatch(/^pk_/);
    expect(phone.credentials.has(k.credential_id)).toBe(true);
    expect(new Date(k.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    alicePasskey = k;
    const { rows } = await getPool().query(`SELECT user_id, public_key, counter, aaguid FROM passkey_credentials WHERE id = $1`, [k.id]);
    expect(rows[0].user_id).toBe(alice.userId);
    expect(Buffer.from(rows[0].public_key)).toEqual(Buffer.from(phone.credentials.get(k.credential_id)!.cosePublicKey));
    expect(rows[0].counter).toBe('0');
    expect(rows[0].aaguid).toBe('00000000-0000-0000-0000-000000000000');
  });

  it('the next options exclude the credential, keep the user handle, and the authenticator refuses to register twice', async () => {
    const o = await registrationOptions(alice);
    expect(o.excludeCredentials?.map((c) => c.id)).toEqual([alicePasskey.credential_id]);
    expect(o.user.id).toBe(phone.credentials.get(alicePasskey.credential_id)!.userHandle);
    expect(() => phone.create(o)).toThrow(/InvalidStateError/);
  });

  it('a single-device credential (no backup) is stored as such', async () => {
    const key = new SoftwareAuthenticator({ backupEligible: false, transports: ['usb', 'nfc', 'bogus'] });
    const r = await register(alice, key, 'Security key');
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({ device_type: 'singleDevice', backed_up: false, transports: ['usb', 'nfc'] });
  });

  it('refuses, with one 422, a wrong origin, a wrong RP ID, UV missing, an authentication challenge, and a spent challenge', async () => {
    const refused = async (response: RegistrationResponseJSON, reason: RegExp) => {
      // The reason first (a refusal spends nothing), then the one answer the caller gets.
      const check = await registerPasskey({ userId: alice.userId, kind: 'session' } as Principal, { response });
      expect(check.ok ? 'registered' : check.reason).toMatch(reason);
      const r = await post(`${BASE}/passkeys/registration/verify`, { response }, await session(alice));
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().errors[0].code).toBe('PASSKEY_REGISTRATION_FAILED');
    };
    const device = () => new SoftwareAuthenticator({ origin: 'http://localhost:3000' });
    await refused(device().create(await registrationOptions(alice), { origin: 'https://evil.example' }), /origin_mismatch/);
    await refused(device().create(await registrationOptions(alice), { rpId: 'evil.example' }), /rp_id_mismatch/);
    await refused(device().create(await registrationOptions(alice), { uv: false }), /user_not_verified/);
    await refused(device().create(await registrationOptions(alice), { type: 'webauthn.get' }), /type_mismatch/);
    const signIn = await signInOptions();
    await refused(device().create({ ...(await registrationOptions(alice)), challenge: signIn.challenge }), /challenge_not_issued/);
    // Another user's registration challenge is not this user's.
    const bob = await createTestUser();
    await refused(device().create(await registrationOptions(bob)), /challenge_not_issued/);
    // The same response twice: the first registers, the second finds its challenge spent.
    const response = device().create(await registrationOptions(alice));
    expect((await post(`${BASE}/passkeys/registration/verify`, { response }, await session(alice))).statusCode).toBe(201);
    await refused(response, /challenge_used_or_expired/);
  });

  it('needs credentials, and a login session: an API key cannot register a passkey (it would mint biometric sessions)', async () => {
    for (const url of [`${BASE}/passkeys/registration/options`, `${BASE}/passkeys/registration/verify`]) {
      const body = url.endsWith('verify') ? { response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' }, clientExtensionResults: {} } } : undefined;
      const r = await post(url, body, alice.headers);
      expect(r.statusCode, r.body).toBe(403);
      expect(r.json().errors[0].code).toBe('LOGIN_SESSION_REQUIRED');
    }
    expect((await post(`${BASE}/passkeys/registration/options`)).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/passkeys` })).statusCode).toBe(401);
  });
});

describe('sign-in', () => {
  it('options: the user\'s passkeys for a known email, an empty list otherwise, the same shape either way', async () => {
    const known = await signInOptions(alice.email.toUpperCase());
    expect(known.allowCredentials?.map((c) => c.id)).toContain(alicePasskey.credential_id);
    expect(known.userVerification).toBe('required');
    expect(known.rpId).toBe('localhost');
    const unknown = await signInOptions('nobody@example.test');
    const noPasskeys = await signInOptions((await createTestUser()).email);
    const discoverable = await signInOptions();
    for (const o of [unknown, noPasskeys, discoverable]) {
      expect(o.allowCredentials).toEqual([]);
      expect(Object.keys(o).sort()).toEqual(Object.keys(known).sort());
    }
    const shape = (o: object) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? 'array' : typeof v]));
    expect(shape(unknown)).toEqual(shape(known));
    // A client may send no body at all.
    const bare = await t.app.inject({ method: 'POST', url: `${BASE}/passkey/options` });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().data.allowCredentials).toEqual([]);
  });

  it('a verified assertion starts a biometric session; its token works as the bearer', async () => {
    const options = await signInOptions(alice.email);
    const assertion = phone.get(options);
    const r = await verify(verifyBody(assertion));
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ token_type: 'Bearer', environment: 'sandbox', biometric: true, credential_id: alicePasskey.credential_id, expires_in: 900 });
    expect(body.refresh_token).toMatch(/^rt_/);
    const { data, ...top } = body;
    expect(data).toEqual(top);

    const bearer = { authorization: `Bearer ${body.access_token}` };
    const session = await t.app.inject({ method: 'GET', url: `${BASE}/session`, headers: bearer });
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json().data).toEqual({ user_id: alice.userId, credential: 'session', environment: 'sandbox', biometric: true });
    const list = await t.app.inject({ method: 'GET', url: `${BASE}/passkeys`, headers: bearer });
    expect(list.json().data.map((k: Json) => k.id)).toContain(alicePasskey.id);
    expect(list.json().data.find((k: Json) => k.id === alicePasskey.id).last_used_at).not.toBeNull();
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: bearer });
    expect(me.json().data.id).toBe(alice.userId);

    const check = await authenticateAccessToken(body.access_token);
    expect(check.ok && check.principal.biometric).toBe(true);
    const { rows } = await getPool().query(`SELECT auth_method FROM user_sessions WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1`, [alice.userId]);
    expect(rows[0].auth_method).toBe('passkey');
    const { rows: counter } = await getPool().query(`SELECT counter FROM passkey_credentials WHERE id = $1`, [alicePasskey.id]);
    expect(counter[0].counter).toBe(String(phone.credentials.get(alicePasskey.credential_id)!.counter));

    // A refreshed passkey session stays biometric (it is the same session).
    const refreshed = await post('/api/auth/refresh', { refresh_token: body.refresh_token });
    const after = await authenticateAccessToken(refreshed.json().access_token);
    expect(after.ok && after.principal.biometric).toBe(true);
  });

  it('a password login session and an API key are not biometric', async () => {
    const login = await post('/api/auth/login', { email: alice.email, password: alice.password });
    expect(login.statusCode, login.body).toBe(200);
    const s = await t.app.inject({ method: 'GET', url: `${BASE}/session`, headers: { authorization: `Bearer ${login.json().access_token}` } });
    expect(s.json().data).toMatchObject({ credential: 'session', biometric: false });
    const check = await authenticateAccessToken(login.json().access_token);
    expect(check.ok && check.principal.biometric).toBe(false);
    const k = await t.app.inject({ method: 'GET', url: `${BASE}/session`, headers: alice.headers });
    expect(k.json().data).toMatchObject({ credential: 'api_key', biometric: false });
  });

  it('accepts standard base64 (padded, + and /) as well as base64url, and the environment asked for', async () => {
    const urlBody = verifyBody(phone.get(await signInOptions(alice.email)), 'base64url');
    expect((await verify(urlBody)).statusCode).toBe(200);
    const stdBody = verifyBody(phone.get(await signInOptions(alice.email)), 'base64');
    expect(stdBody.authenticator_data).toMatch(/=$/);
    expect(Object.values(stdBody).join('')).not.toEqual(Object.values(urlBody).join(''));
    const r = await verify({ ...stdBody, environment: 'production' });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ environment: 'production', biometric: true });
  });

  it('a discoverable credential signs in without an email (options with no allowCredentials)', async () => {
    const r = await verify(verifyBody(phone.get(await signInOptions())));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().credential_id).toBe(alicePasskey.credential_id);
  });

  it('an authenticator without a counter (always 0) signs in repeatedly', async () => {
    const synced = new SoftwareAuthenticator({ counterStep: 0 });
    expect((await register(alice, synced, 'Synced')).statusCode).toBe(201);
    for (let i = 0; i < 2; i++) expect((await verify(verifyBody(synced.get(await signInOptions(alice.email))))).statusCode).toBe(200);
  });

  it('the same assertion sent twice at once: exactly one session', async () => {
    const body = verifyBody(phone.get(await signInOptions(alice.email)));
    const results = await Promise.all(Array.from({ length: 4 }, () => verify(body)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401, 401, 401]);
  });
});

describe('every refusal is the same 401', () => {
  const assertion = async (tamper: Tamper = {}, device = phone) => verifyBody(device.get(await signInOptions(alice.email), tamper));

  it('flipped signature byte', async () => {
    await expectRefused(await assertion({ flipSignatureByte: true }), /signature_invalid/);
  });

  it('wrong origin', async () => {
    await expectRefused(await assertion({ origin: 'https://evil.example' }), /origin_mismatch/);
  });

  it('wrong RP ID', async () => {
    await expectRefused(await assertion({ rpId: 'evil.example' }), /rp_id_mismatch/);
  });

  it('clientData type webauthn.create on authentication', async () => {
    await expectRefused(await assertion({ type: 'webauthn.create' }), /type_mismatch/);
  });

  it('UV cleared while required (and UP cleared)', async () => {
    await expectRefused(await assertion({ uv: false }), /user_not_verified/);
    await expectRefused(await assertion({ up: false }), /user_not_present/);
  });

  it('replay of an accepted assertion', async () => {
    const body = await assertion();
    expect((await verify(body)).statusCode).toBe(200);
    await expectRefused(body, /challenge_used_or_expired/);
  });

  it('counter going backwards (or standing still)', async () => {
    const current = phone.credentials.get(alicePasskey.credential_id)!.counter;
    await expectRefused(await assertion({ counter: current - 1 }), /counter_not_advanced/);
    await expectRefused(await assertion({ counter: current }), /counter_not_advanced/);
    // The honest next value still works: nothing was spent by the refusals.
    expect((await verify(await assertion({ counter: current + 1 }))).statusCode).toBe(200);
  });

  it('an expired challenge', async () => {
    process.env.WEBAUTHN_CHALLENGE_TTL_SECONDS = '1';
    try {
      const body = await assertion();
      await new Promise((r) => setTimeout(r, 1_300));
      await expectRefused(body, /challenge_used_or_expired/);
    } finally {
      delete process.env.WEBAUTHN_CHALLENGE_TTL_SECONDS;
    }
  });

  it('a challenge from registration used for authentication', async () => {
    const reg = await registrationOptions(alice);
    await expectRefused(await assertion({ challenge: reg.challenge }), /challenge_not_issued/);
  });

  it('a challenge the server never issued', async () => {
    await expectRefused(await assertion({ challenge: Buffer.alloc(32, 1).toString('base64url') }), /challenge_not_issued/);
  });

  it('unknown credential', async () => {
    const stranger = new SoftwareAuthenticator({ origin: ANDROID_ORIGIN });
    const options = await signInOptions();
    stranger.create(await registrationOptions(alice)); // made on the device, never sent to the server
    await expectRefused(verifyBody(stranger.get(options)), /unknown_credential/);
  });

  it("a challenge issued for another user's email", async () => {
    const bob = await createTestUser();
    const options = await signInOptions(bob.email);
    await expectRefused(verifyBody(phone.get({ ...options, allowCredentials: [] })), /challenge_of_another_user/);
  });

  it('a user handle that is not the credential\'s', async () => {
    await expectRefused(await assertion({ userHandle: Buffer.alloc(32, 9).toString('base64url') }), /user_handle_mismatch/);
  });

  it('fields that are not base64, and client data that is not JSON', async () => {
    const body = await assertion();
    await expectRefused({ ...body, signature: 'not base64!' }, /malformed_input/);
    await expectRefused({ ...body, client_data_json: Buffer.from('{"type":').toString('base64url') }, /malformed_client_data/);
  });

  it('an origin not in WEBAUTHN_ORIGINS once the setting changes', async () => {
    const body = await assertion();
    process.env.WEBAUTHN_ORIGINS = 'http://localhost:3000';
    try {
      await expectRefused(body, /origin_mismatch/);
    } finally {
      process.env.WEBAUTHN_ORIGINS = `http://localhost:3000,${ANDROID_ORIGIN}`;
    }
  });
});

describe('settings', () => {
  it('WEBAUTHN_REQUIRE_UV=false lets an assertion without UV through and asks for UV as preferred', async () => {
    process.env.WEBAUTHN_REQUIRE_UV = 'false';
    try {
      const options = await signInOptions(alice.email);
      expect(options.userVerification).toBe('preferred');
      expect((await verify(verifyBody(phone.get(options, { uv: false })))).statusCode).toBe(200);
    } finally {
      delete process.env.WEBAUTHN_REQUIRE_UV;
    }
  });

  it('an origin outside the RP ID is a configuration error (503), not a refusal', async () => {
    process.env.WEBAUTHN_ORIGINS = 'https://elsewhere.example';
    try {
      const r = await post(`${BASE}/passkey/options`, {});
      expect(r.statusCode).toBe(503);
      expect(r.json().errors[0].code).toBe('PASSKEYS_NOT_CONFIGURED');
    } finally {
      process.env.WEBAUTHN_ORIGINS = `http://localhost:3000,${ANDROID_ORIGIN}`;
    }
  });
});

describe('removal', () => {
  it("another user's passkey is not found (404); the owner removes it and can no longer sign in with it", async () => {
    const bob = await createTestUser();
    const del = (id: string, user: TestUser) => t.app.inject({ method: 'DELETE', url: `${BASE}/passkeys/${id}`, headers: user.headers });
    const r = await del(alicePasskey.id, bob);
    expect(r.statusCode).toBe(404);
    expect(r.body).not.toContain(alicePasskey.credential_id);
    const bobs = await t.app.inject({ method: 'GET', url: `${BASE}/passkeys`, headers: bob.headers });
    expect(bobs.json().data).toEqual([]);

    const body = verifyBody(phone.get(await signInOptions()));
    expect((await del(alicePasskey.id, alice)).statusCode).toBe(204);
    expect((await del(alicePasskey.id, alice)).statusCode).toBe(404);
    await expectRefused(body, /unknown_credential/);
    const list = await t.app.inject({ method: 'GET', url: `${BASE}/passkeys`, headers: alice.headers });
    expect(list.json().data.map((k: Json) => k.id)).not.toContain(alicePasskey.id);
  });
});

describe('deletion racing its use (issue 41)', () => {
  const liveSessions = async (passkeyId: string) =>
    (await getPool().query<{ n: number }>('SELECT count(*)::int AS n FROM user_sessions WHERE passkey_id = $1 AND revoked_at IS NULL', [passkeyId])).rows[0].n;

  it('a sign-in verified before its passkey is deleted but starting its session after gets no session', async () => {
    const u = await createTestUser();
    const key = new SoftwareAuthenticator({ counterStep: 0 });
    const pk = (await register(u, key, 'Racing')).json().data as { id: string };
    const check = await verifyPasskeyAssertion(verifyBody(key.get(await signInOptions(u.email))) as never);
    expect(check.ok).toBe(true);
    // The owner deletes it between the check and the session: the interleaving of a sign-in racing the deletion.
    expect((await t.app.inject({ method: 'DELETE', url: `${BASE}/passkeys/${pk.id}`, headers: u.headers })).statusCode).toBe(204);
    const tokens = await startPasskeySession(u.userId, 'sandbox', pk.id);
    expect(tokens).toBeNull();
    expect(await liveSessions(pk.id)).toBe(0);
  });

  it('twenty concurrent DELETEs of one passkey while its sessions sign in, refresh and call: exactly one deletion, no session left biometric', async () => {
    const u = await createTestUser();
    const key = new SoftwareAuthenticator({ counterStep: 0 });
    const pk = (await register(u, key, 'Contested')).json().data as { id: string };
    const signIn = async () => verify(verifyBody(key.get(await signInOptions(u.email))));
    const live = (await signIn()).json();
    // Assertions made before the race, sent during it.
    const bodies = await Promise.all(Array.from({ length: 4 }, async () => verifyBody(key.get(await signInOptions(u.email)))));
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const [deletes, uses] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => t.app.inject({ method: 'DELETE', url: `${BASE}/passkeys/${pk.id}`, headers: u.headers }))),
      Promise.all([
        ...bodies.map((b) => verify(b)),
        post('/api/auth/refresh', { refresh_token: live.refresh_token }),
        t.app.inject({ method: 'GET', url: `${BASE}/session`, headers: bearer(live.access_token) }),
      ]),
    ]);
    expect(deletes.map((r) => r.statusCode).sort()).toEqual([204, ...Array.from({ length: 19 }, () => 404)]);
    expect((await getPool().query('SELECT 1 FROM passkey_credentials WHERE id = $1', [pk.id])).rowCount).toBe(0);
    expect(await liveSessions(pk.id)).toBe(0);
    // Whatever token the race handed out (a sign-in, a refresh) is refused now; sign-ins that lost are the usual 401.
    const tokens = [live.access_token, ...uses.filter((r) => r.statusCode === 200 && r.json().access_token).map((r) => r.json().access_token as string)];
    for (const token of tokens) expect((await t.app.inject({ method: 'GET', url: `${BASE}/session`, headers: bearer(token) })).statusCode).toBe(401);
    for (const r of uses.slice(0, bodies.length)) expect([200, 401]).toContain(r.statusCode);
  });
});
