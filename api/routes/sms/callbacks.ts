/**
 * POST /api/v1/sms/callbacks/twilio: Twilio's status callbacks (form-encoded, signed with
 * X-Twilio-Signature). Public: the signature is the credential (403 when it does not match).
 */
import { parse } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { acceptTwilioStatusCallback } from '../../../domain/sms/callbacks';
import { errorResponses } from '../../schemas';

export default async function smsCallbackRoutes(app: FastifyInstance) {
  // Twilio posts application/x-www-form-urlencoded; this scope reads it (the API elsewhere is JSON).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, parse(body as string));
  });
  app.post<{ Querystring: { message_id: string }; Body: Record<string, string | string[]> }>(
    '/api/v1/sms/callbacks/twilio',
    {
      config: { public: true, idempotency: false },
      schema: {
        tags: ['SMS'],
        summary: "Twilio's delivery status callback for a message (signed with X-Twilio-Signature)",
        description: 'Wakes the message\'s send workflow, which reads the delivery report from Twilio itself. 403 CALLBACK_SIGNATURE_INVALID when the signature does not match.',
        security: [],
        querystring: { type: 'object', required: ['message_id'], properties: { message_id: { type: 'string', minLength: 1, maxLength: 100 } } },
        consumes: ['application/x-www-form-urlencoded'],
        body: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
        response: { 204: { description: 'Accepted', type: 'null' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const sig = request.headers['x-twilio-signature'];
      await acceptTwilioStatusCallback({ messageId: request.query.message_id, signature: Array.isArray(sig) ? sig[0] : sig, params: request.body ?? {} });
      return reply.code(204).send();
    },
  );
}
