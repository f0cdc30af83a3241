/** POST /regtech/mica/check: caller → one domain call → presenter. */
import type { FastifyInstance } from 'fastify';
import { getOwnMicaCheck, listIssuers, listWhitepapers, registerIssuer, registerWhitepaper, runMicaCheck, type MicaCheckRequest, type MicaIssuer, type MicaWhitepaper } from '../../../domain/regtech/mica';
import { envelope, errorResponses, timestamp } from '../../schemas';
import { principalOf } from '../../types';
import { issuerBody, whitepaperBody, presentMicaCheck } from '../../operations/regtech/mica';

export default async function micaRoutes(app: FastifyInstance) {
  app.post<{ Body: MicaCheckRequest }>(
    '/api/v2/regtech/mica/check',
    {
      schema: {
        tags: ['Regtech'],
        summary: 'MiCA check of a crypto-asset: class, issuer authorisation, white paper',
        description:
          'asset_type is emt, art, other or a listed asset code (a basket such as GCU is an asset-referenced token; USDC and USDT are e-money ' +
          'tokens). The issuer must hold the authorisation the class needs (EMT: credit or e-money institution, MiCA Art. 48; ART: authorised ' +
          'issuer or credit institution, Art. 16), and whitepaper_hash (SHA-256 hex) must be the registered, current white paper of that issuer. ' +
          'A failing check is 201 with is_compliant false and compliance_issues (ISSUER_NOT_AUTHORISED_FOR_EMT, ISSUER_NOT_AUTHORISED_FOR_ART, ' +
          'WHITEPAPER_NOT_REGISTERED, WHITEPAPER_ISSUER_MISMATCH, WHITEPAPER_WITHDRAWN). Unknown issuer: 404 ISSUER_NOT_FOUND.',
        body: {
          type: 'object',
          required: ['asset_type', 'issuer_id', 'whitepaper_hash'],
          additionalProperties: false,
          properties: {
            asset_type: { type: 'string', minLength: 1, maxLength: 40 },
            issuer_id: { type: 'string', minLength: 1, maxLength: 100 },
            whitepaper_hash: { type: 'string', minLength: 1, maxLength: 100 },
          },
        },
        response: {
          201: envelope({
            type: 'object',
            additionalProperties: true,
            properties: { check_id: { type: 'string' }, is_compliant: { type: 'boolean' }, classification: { type: 'string' }, checked_at: timestamp },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentMicaCheck(await runMicaCheck(principalOf(request), request.body)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/regtech/mica/checks/:id',
    {
      schema: {
        tags: ['Regtech'],
        summary: 'A stored MiCA check',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } },
        response: { 200: envelope({ type: 'object', additionalProperties: true, properties: { check_id: { type: 'string' } } }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentMicaCheck(await getOwnMicaCheck(principalOf(request), request.params.id)) }),
  );

  const issuerSchema = { type: 'object', additionalProperties: true, properties: { id: { type: 'string' }, name: { type: 'string' }, authorisation: { type: 'string' } } };
  const paperSchema = { type: 'object', additionalProperties: true, properties: { id: { type: 'string' }, sha256: { type: 'string' }, status: { type: 'string' } } };
  const presentIssuer = (i: MicaIssuer) => ({ id: i.id, name: i.name, lei: i.lei, authorisation: i.authorisation, home_member_state: i.homeMemberState, authorised_at: i.authorisedAt, notes: i.notes });
  const presentPaper = (w: MicaWhitepaper) => ({ id: w.id, asset_code: w.assetCode, issuer_id: w.issuerId, sha256: w.sha256, version: w.version, status: w.status, published_at: w.publishedAt });

  app.get('/api/v2/regtech/mica/issuers', { schema: { tags: ['Regtech'], summary: 'The MiCA register: issuers and their authorisation', response: { 200: envelope({ type: 'array', items: issuerSchema }), ...errorResponses } } }, async () => ({
    data: (await listIssuers()).map(presentIssuer),
  }));

  app.post<{ Body: Parameters<typeof registerIssuer>[1] }>(
    '/api/v2/regtech/mica/issuers',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Add an issuer to the MiCA register (platform operators only)',
        body: issuerBody,
        response: { 201: envelope(issuerSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentIssuer(await registerIssuer(principalOf(request), request.body)) }),
  );

  app.get('/api/v2/regtech/mica/whitepapers', { schema: { tags: ['Regtech'], summary: 'The MiCA register: white papers by SHA-256', response: { 200: envelope({ type: 'array', items: paperSchema }), ...errorResponses } } }, async () => ({
    data: (await listWhitepapers()).map(presentPaper),
  }));

  app.post<{ Body: Parameters<typeof registerWhitepaper>[1] }>(
    '/api/v2/regtech/mica/whitepapers',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Register a white paper by its SHA-256 (platform operators only)',
        body: whitepaperBody,
        response: { 201: envelope(paperSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.code(201).send({ data: presentPaper(await registerWhitepaper(principalOf(request), request.body)) }),
  );
}
