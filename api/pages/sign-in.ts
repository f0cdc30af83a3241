/**
 * What the platform's approval pages share (the open-banking SCA page, the OAuth consent page): the
 * headers that keep them from being framed, cached or scripted by anyone else, their style, the
 * sign-in form, and the script that signs the customer in with their password or a passkey through
 * the platform's own sign-in routes. A page declares `environment` before SIGN_IN_SCRIPT and its
 * own decision code after it (`token` holds the login session once signed in).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Sets the page headers (a nonce-only CSP, no framing, no caching) and returns the nonce. */
export function htmlPage(reply: FastifyReply): string {
  const nonce = randomBytes(16).toString('base64');
  reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; form-action 'self'`)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer');
  return nonce;
}

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** JSON safe inside a <script> element. */
export const js = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export const STYLE = `body{font:16px system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
button{font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.2rem 0 .6rem}
.box{border:1px solid #ccc;border-radius:8px;padding:1rem;margin:1rem 0}.hidden{display:none}#msg{color:#a00}`;

export const SIGN_IN_FORM = `<div id="signin" class="box"><label>Email<input id="email" type="email" autocomplete="username"></label>
<label>Password<input id="password" type="password" autocomplete="current-password"></label>
<button id="login">Sign in</button><button id="passkey">Sign in with a passkey</button></div>
<div id="decide" class="box hidden"><button id="approve">Approve</button><button id="deny">Deny</button></div>
<p id="msg"></p>`;

export const SIGN_IN_SCRIPT = `
let token = null;
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
`;
