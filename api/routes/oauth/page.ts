/**
 * The authorization endpoint (GET /oauth/authorize): a server-rendered consent page. The user signs
 * in through the existing sign-in routes (password or passkey) in the client's environment, sees
 * the app and the scopes it asks for, and approves or denies; the page posts the decision
 * (POST /oauth/authorize/decision, with the login session) and sends the browser where it answers.
 * Requests naming an unknown client or an unregistered redirect URI are shown an error here and
 * never redirected (RFC 6749 §4.1.2.1); other errors are redirected to the client.
 */
import type { FastifyInstance } from 'fastify';
import { esc, htmlPage, js, SIGN_IN_FORM, SIGN_IN_SCRIPT, STYLE } from '../../pages/sign-in';
import { checkAuthorizationRequest, decideAuthorization, type AuthorizationParams } from '../../../domain/oauth';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';

const PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
const paramProps = Object.fromEntries(PARAMS.map((p) => [p, { type: 'string', maxLength: p === 'redirect_uri' || p === 'state' ? 2000 : 200 }]));
const SCOPE_TEXT: Record<string, string> = { read: 'see your accounts, balances and transactions', write: 'create transfers and other changes', delete: 'delete and revoke things' };

const ERROR_PAGE = (nonce: string, message: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorization error</title><style nonce="${nonce}">${STYLE}</style></head>
<body><h1>This app cannot be authorized</h1><p id="msg">${esc(message)}</p></body></html>`;

const CONSENT_PAGE = (nonce: string, o: { app: string; environment: string; scopes: string[]; request: AuthorizationParams }) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize ${esc(o.app)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><h1>Authorize ${esc(o.app)}</h1>
<div class="box"><p><strong>${esc(o.app)}</strong> asks to act for you in <strong>${esc(o.environment)}</strong>, to:</p>
<ul>${o.scopes.map((s) => `<li>${esc(s)}: ${esc(SCOPE_TEXT[s] ?? s)}</li>`).join('')}</ul></div>
${SIGN_IN_FORM}
<script nonce="${nonce}">
const request = ${js(o.request)};
const environment = ${js(o.environment)};
${SIGN_IN_SCRIPT}
async function decide(decision) {
  try { location.href = (await api('POST', '/oauth/authorize/decision', { ...request, decision }, token)).redirect_to; } catch (e) { say(e.message); }
}
$('approve').onclick = () => decide('approve');
$('deny').onclick = () => decide('deny');
</script></body></html>`;

const decisionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['client_id', 'response_type', 'code_challenge', 'code_challenge_method', 'decision'],
  properties: { ...paramProps, decision: { type: 'string', enum: ['approve', 'deny'] } },
};

export default async function oauthPageRoutes(app: FastifyInstance) {
  app.get<{ Querystring: AuthorizationParams }>(
    '/oauth/authorize',
    { config: { public: true }, schema: { hide: true, querystring: { type: 'object', properties: paramProps } } },
    async (request, reply) => {
      const nonce = htmlPage(reply);
      const check = await checkAuthorizationRequest(request.query);
      if (check.kind === 'fatal') return reply.code(400).send(ERROR_PAGE(nonce, check.message));
      if (check.kind === 'redirect') return reply.redirect(check.redirectTo, 302);
      const q = Object.fromEntries(PARAMS.filter((p) => request.query[p] !== undefined).map((p) => [p, request.query[p]]));
      return CONSENT_PAGE(nonce, { app: check.client.name, environment: check.client.environment, scopes: check.scopes, request: q });
    },
  );

  app.post<{ Body: AuthorizationParams & { decision: 'approve' | 'deny' } }>(
    '/oauth/authorize/decision',
    {
      config: { idempotency: false },
      schema: {
        tags: ['OAuth'],
        summary: "The signed-in user's decision on an app's authorization request (used by the consent page)",
        description:
          'Needs a login session (bearer access token from password or passkey sign-in, of the client\'s environment); an API key or OAuth token gets 403 LOGIN_SESSION_REQUIRED. ' +
          'Takes the authorization request\'s parameters and approve or deny; answers where to send the browser: the redirect URI with a single-use code (and state), or with error=access_denied. ' +
          'An unknown client or unregistered redirect URI is 422 OAUTH_REQUEST_INVALID. See docs/oauth.md.',
        body: decisionBody,
        response: { 200: envelope({ type: 'object', properties: { redirect_to: { type: 'string' } } }), ...errorResponses },
      },
    },
    async (request) => {
      const { decision, ...q } = request.body;
      const { redirectTo } = await decideAuthorization(principalOf(request), q, decision);
      return { data: { redirect_to: redirectTo } };
    },
  );
}
