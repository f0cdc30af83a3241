/**
 * POST /partner/sdk/generate and the generation's status (partner rows: bearer key and
 * X-Partner-Key). Generation itself: domain/partner/sdk (a Temporal workflow; cached by content).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getSdkGeneration, requestSdkGeneration, SDK_GENERATE_BODY_SCHEMA, waitForSdkGeneration } from '../../../domain/partner/sdk';
import { envelope, errorResponses } from '../../schemas';
import { partnerOf, principalOf } from '../../types';
import { baseUrlOf } from '../../operations/caller';
import { partnerKeyHeader } from '../../operations/partner/schemas';

const TAGS = ['Partner'];
const obj = { type: 'object', additionalProperties: true };
/** How long the request waits for the generation before answering 202 with its id. */
const WAIT_MS = 55_000;

/** Scheme and host the caller reached us by, for the download links. */
export default async function partnerSdkRoutes(app: FastifyInstance) {
  app.post<{ Body: unknown }>(
    '/api/v2/partner/sdk/generate',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'generateSdk',
        summary: "Generate client SDKs (TypeScript, Python) from the platform's OpenAPI document",
        description:
          'Runs as a workflow; the answer waits for it up to about a minute: 201 with the packages (language, version, package_name, download_url ' +
          '(signed, expiring), install_command, sha256), else 202 with generation_id and status pending (GET /api/v2/partner/sdk/generations/{id}). ' +
          'Identical requests give byte-identical packages, from cache.',
        headers: partnerKeyHeader,
        body: SDK_GENERATE_BODY_SCHEMA,
        response: { 201: envelope(obj), 202: envelope(obj), ...errorResponses },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const partner = partnerOf(request);
      const started = await requestSdkGeneration({ userId: p.userId, environment: p.environment, partnerId: partner.id, body: request.body, baseUrl: baseUrlOf(request) });
      const g = started.status === 'pending' ? await waitForSdkGeneration({ id: started.generation_id, userId: p.userId, environment: p.environment, partnerId: partner.id, baseUrl: baseUrlOf(request) }, WAIT_MS) : started;
      return reply.code(g.status === 'pending' ? 202 : 201).send({ data: g });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/partner/sdk/generations/:id',
    {
      config: { partnerKey: true },
      schema: {
        tags: TAGS,
        operationId: 'getSdkGeneration',
        summary: 'An SDK generation of the partner, with fresh download links once completed',
        headers: partnerKeyHeader,
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
        response: { 200: envelope(obj), ...errorResponses },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { data: await getSdkGeneration({ id: request.params.id, userId: p.userId, environment: p.environment, partnerId: partnerOf(request).id, baseUrl: baseUrlOf(request) }) };
    },
  );
}
