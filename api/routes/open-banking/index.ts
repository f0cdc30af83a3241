import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, titleFor } from '../../errors';
import { sendErrors, validationErrors, type AjvError } from '../../plugins/errors';
import { accountRoutes } from './accounts';
import { consentRoutes } from './consents';
import { registerOpenBankingConventions } from './context';
import { customerRoutes } from './customer';
import { paymentRoutes } from './payments';
import { platformRoutes } from './platform';
import { BG_PREFIX } from '../../operations/open-banking/schemas';
import { tppRoutes } from './tpps';

/**
 * Open banking (mounted at /api/v1/open-banking; docs/open-banking.md): the TPP registry, the
 * customer's side (deciding SCA, their consents), the platform spec's three enveloped rows
 * (platform.ts), and the Berlin Group NextGenPSD2 routes at the 1.3.12 paths under BG_PREFIX
 * (consents, account information, payment initiation, SCA authorisations), answering the
 * standard's bodies exactly. The redirect SCA page lives outside the API (page.ts).
 */
export default async function openBankingRoutes(app: FastifyInstance) {
  registerOpenBankingConventions(app);
  tppRoutes(app);
  platformRoutes(app);
  customerRoutes(app);
  const bgPath = BG_PREFIX.slice(app.prefix.length);
  await app.register(
    async (bg) => {
      bg.setErrorHandler(berlinGroupFormatErrors);
      consentRoutes(bg);
      accountRoutes(bg);
      paymentRoutes(bg);
    },
    { prefix: bgPath },
  );
}

/**
 * The standard has no 422: on its routes a request outside the route's schema (body, query,
 * headers, path) or a body that is not JSON is its 400 FORMAT_ERROR, naming the field. Anything
 * else goes on to the platform's error handler.
 */
function berlinGroupFormatErrors(err: FastifyError & { validation?: AjvError[]; validationContext?: string }, _request: unknown, reply: FastifyReply) {
  const format = (detail: string, source?: object) => ({ status: '400', code: 'FORMAT_ERROR', title: titleFor(400), detail, ...(source ? { source } : {}) });
  if (err.validation) return sendErrors(reply, 400, validationErrors(err.validation, err.validationContext).map((e) => format(e.detail ?? 'Invalid request', e.source)));
  if (err.statusCode === 400 && (err instanceof SyntaxError || String(err.code ?? '').startsWith('FST_ERR_CTP'))) return sendErrors(reply, 400, [format('The request body is not valid JSON')]);
  // The platform's own input guards (U+0000 in a parameter or the body: api/plugins/validation.ts).
  if (err instanceof ApiError && err.status === 422 && err.code === 'VALIDATION_ERROR') return sendErrors(reply, 400, err.toErrorObjects().map((e) => format(e.detail, e.source)));
  throw err;
}
