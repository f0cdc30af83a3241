/**
 * The sandbox x402 facilitator (the X-Payment-Facilitator URL of sandbox 402s): x402 v2's
 * facilitator protocol over the platform's ledger. Public, sandbox money only; the bodies and
 * answers are the protocol's own JSON, not the envelope.
 */
import type { FastifyInstance } from 'fastify';
import { facilitatorSettle, facilitatorVerify } from '../../../domain/x402/sandbox-facilitator';
import { facilitatorFor } from '../../../domain/x402/facilitator';
import { errorResponses, publicErrorResponses } from '../../schemas';

const TAGS = ['x402'];
const body = {
  type: 'object',
  required: ['x402Version', 'paymentPayload', 'paymentRequirements'],
  properties: {
    x402Version: { type: 'integer', enum: [2] },
    paymentPayload: { type: 'object', additionalProperties: true },
    paymentRequirements: { type: 'object', additionalProperties: true },
  },
};
const open = { type: 'object', additionalProperties: true };

export default async function x402FacilitatorRoutes(app: FastifyInstance) {
  app.get(
    '/api/v2/x402/facilitator/supported',
    { config: { public: true }, schema: { tags: TAGS, summary: 'Sandbox facilitator: the payment kinds it settles (x402 v2)', security: [], response: { 200: open, ...publicErrorResponses } } },
    async () => ({ kinds: await facilitatorFor('sandbox').supported(), extensions: [], signers: {} }),
  );
  app.post(
    '/api/v2/x402/facilitator/verify',
    {
      config: { public: true, idempotency: false },
      schema: { tags: TAGS, summary: 'Sandbox facilitator: would this payment settle now? (x402 v2 VerifyResponse)', security: [], body, response: { 200: open, ...errorResponses } },
    },
    async (request) => facilitatorVerify(request.body),
  );
  app.post(
    '/api/v2/x402/facilitator/settle',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Sandbox facilitator: settle a payment on the ledger, once per authorization (x402 v2 SettleResponse)',
        security: [],
        body,
        response: { 200: open, ...errorResponses },
      },
    },
    async (request) => facilitatorSettle(request.body),
  );
}
