/**
 * The platform page of the redirect SCA approach (GET /open-banking/sca/{authorisationId}): the
 * customer sees which TPP asks for what, signs in with their password or a passkey, and approves
 * or denies; the page then returns them to the TPP. It is a thin client of the JSON routes in
 * customer.ts and of the sign-in routes; no decision is made here.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const PAGE = (nonce: string, id: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve access</title>
<style nonce="${nonce}">body{font:16px system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
button{font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.2rem 0 .6rem}
.box{border:1px solid #ccc;border-radius:8px;padding:1rem;margin:1rem 0}.hidden{display:none}#msg{color:#a00}</style></head>
<body><h1>Approve access</h1>
<div id="ask" class="box">Loading…</div>
<div id="signin" class="box"><label>Email<input id="email" type="email" autocomplete="username"></label>
<label>Password<input id="password" type="password" autocomplete="current-password"></label>
<button id="login">Sign in</button><button id="passkey">Sign in with a passkey</button></div>
<div id="decide" class="box hidden"><button id="approve">Approve</button><button id="deny">Deny</button></div>
<p id="msg"></p>
<script nonce="${nonce}">
const id = ${JSON.stringify(id)};
let token = null, environment = 'sandbox';
const $ = (x) => document.getElementById(x);
const say = (t) => { $('msg').textContent = t; };
const b64u = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const unb64u = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
async function api(method, url, body, auth) {
  const r = await fetch(url, { method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: 'Bearer ' + auth } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.errors && j.errors[0] && j.errors[0].detail) || r.statusText);
  return j.data;
}
function signedIn(t) { token = t; $('signin').classList.add('hidden'); $('decide').classList.remove('hidden'); say(''); }
(async () => {
  try {
    const a = await api('GET', '/api/v1/open-banking/sca/' + id);
    environment = a.environment || environment;
    const what = a.subject === 'payment' ? 'to make a payment from your account' : 'to see your account information' + (a.consent ? ' until ' + a.consent.validUntil : '');
    $('ask').textContent = a.tpp.name + ' (' + a.tpp.authorisation_number + ') asks ' + what + '. Status: ' + a.sca_status + '.';
  } catch (e) { $('ask').textContent = 'This request cannot be shown: ' + e.message; $('signin').classList.add('hidden'); }
})();
$('login').onclick = async () => {
  try { signedIn((await api('POST', '/api/auth/login', { email: $('email').value, password: $('password').value, environment })).access_token); } catch (e) { say(e.message); }
};
$('passkey').onclick = async () => {
  try {
    const o = await api('POST', '/api/v2/mobile/auth/passkey/options', $('email').value ? { email: $('email').value } : {});
    const cred = await navigator.credentials.get({ publicKey: { ...o, challenge: unb64u(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: unb64u(c.id) })) } });
    const r = cred.response;
    const s = await api('POST', '/api/v2/mobile/auth/passkey/verify', { credential_id: b64u(cred.rawId), authenticator_data: b64u(r.authenticatorData), client_data_json: b64u(r.clientDataJSON), signature: b64u(r.signature), user_handle: r.userHandle ? b64u(r.userHandle) : null, environment });
    signedIn(s.access_token);
  } catch (e) { say(e.message); }
};
async function decide(decision) {
  try {
    const d = await api('POST', '/api/v1/open-banking/sca/' + id, { decision }, token);
    $('decide').classList.add('hidden');
    say(d.sca_status === 'finalised' ? 'Approved.' : 'Not approved' + (d.reason ? ': ' + d.reason : '') + '.');
    if (d.redirect_uri) setTimeout(() => { location.href = d.redirect_uri; }, 800);
  } catch (e) { say(e.message); }
}
$('approve').onclick = () => decide('approve');
$('deny').onclick = () => decide('deny');
</script></body></html>`;

export async function scaPageRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { authorisationId: string } }>(
    '/open-banking/sca/:authorisationId',
    {
      config: { public: true },
      schema: {
        hide: true,
        params: { type: 'object', required: ['authorisationId'], properties: { authorisationId: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } } },
      },
    },
    async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; form-action 'self'`)
        .header('x-frame-options', 'DENY')
        .header('cache-control', 'no-store');
      return PAGE(nonce, request.params.authorisationId);
    },
  );
}
