/**
 * Downloading a generated SDK package (docs/partner.md, "SDK generation"). Public: the signed,
 * expiring link is the credential (domain/partner/sdk/links.ts), so the link the generation
 * answered with works in `npm install <url>`, curl or a browser. 403 LINK_INVALID for a wrong
 * signature, 410 LINK_EXPIRED past expires (the generation gives fresh links on every read).
 */
import type { FastifyInstance } from 'fastify';
import { sdkPackageDownload } from '../../../domain/partner/sdk';
import { errorEnvelopeSchema, errorResponsesFor } from '../../schemas';

const binary = { schema: { type: 'string', format: 'binary' } };

export default async function sdkDownloadRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string }; Querystring: { expires: number; signature: string } }>(
    '/api/v2/partner/sdk/packages/:id/download',
    {
      config: { public: true },
      schema: {
        tags: ['Partner'],
        summary: 'Download a generated SDK package (signed link)',
        description:
          'The download_url of a package in an SDK generation: the npm tarball (application/gzip) or the Python wheel (application/zip), byte-identical for identical inputs; ETag and X-Checksum-SHA256 carry its sha256. ' +
          'No credentials: the signature (an HMAC over package id and expiry) is the credential. A wrong signature is 403 LINK_INVALID, an expired link 410 LINK_EXPIRED.',
        security: [],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
        querystring: {
          type: 'object',
          required: ['expires', 'signature'],
          properties: {
            expires: { type: 'integer', minimum: 0, maximum: 99_999_999_999, description: 'Unix time (seconds) the link expires at' },
            signature: { type: 'string', maxLength: 128, description: 'base64url HMAC-SHA256 of the package id and expires' },
          },
        },
        response: {
          200: {
            description: 'The package file (content-disposition: attachment with its file name)',
            content: { 'application/gzip': binary, 'application/zip': binary },
          },
          410: { description: 'The link expired (LINK_EXPIRED): read the generation again for a fresh one', content: { 'application/json': { schema: errorEnvelopeSchema } } },
          ...errorResponsesFor([403, 404, 405, 414, 422, 429, 500, 503]),
        },
      },
    },
    async (request, reply) => {
      const p = await sdkPackageDownload(request.params.id, request.query.expires, request.query.signature);
      return reply
        .type(p.contentType)
        .header('content-disposition', `attachment; filename="${p.filename}"`)
        .header('etag', `"${p.sha256}"`)
        .header('x-checksum-sha256', p.sha256)
        .header('cache-control', 'private, no-store')
        .send(p.bytes);
    },
  );
}
