/**
 * The platform page of the redirect SCA approach (GET /open-banking/sca/{authorisationId}): the
 * customer sees which TPP asks for what, signs in with their password or a passkey, and approves
 * or denies; the page then returns them to the TPP. It is a thin client of the JSON routes in
 * customer.ts and of the sign-in routes; no decision is made here.
 */
import type { FastifyInstance } from 'fastify';
import { htmlPage, js, SIGN_IN_FORM, SIGN_IN_SCRIPT, STYLE } from '../../pages/sign-in';

const PAGE = (nonce: string, id: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve access</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body><h1>Approve access</h1>
<div id="ask" class="box">Loading…</div>
${SIGN_IN_FORM}
<script nonce="${nonce}">
const id = ${js(id)};
let environment = 'sandbox';
${SIGN_IN_SCRIPT}
(async () => {
  try {
    const a = await api('GET', '/api/v1/open-banking/sca/' + id);
    environment = a.environment || environment;
    const what = a.subject === 'payment' ? 'to make a payment from your account' : 'to see your account information' + (a.consent ? ' until ' + a.consent.validUntil : '');
    $('ask').textContent = a.tpp.name + ' (' + a.tpp.authorisation_number + ') asks ' + what + '. Status: ' + a.sca_status + '.';
  } catch (e) { $('ask').textContent = 'This request cannot be shown: ' + e.message; $('signin').classList.add('hidden'); }
})();
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
    async (request, reply) => PAGE(htmlPage(reply), request.params.authorisationId),
  );
}
