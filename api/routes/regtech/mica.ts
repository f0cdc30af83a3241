/** POST /regtech/mica/check: caller → one domain call → presenter. */
import type { FastifyInstance } from 'fastify';
import { runMicaCheck, type MicaCheck, type MicaCheckRequest } from '../../../domain/regtech/mica';
import { envelope, errorResponses, timestamp } from '../../schemas';
import { principalOf } from '../../types';

function presentMicaCheck(c: MicaCheck) {
  return {
    check_id: c.id,
    asset_type: c.assetType,
    is_compliant: c.isCompliant,
    classification: c.classification,
    classification_basis: c.classificationBasis,
    issuer: { id: c.issuer.id, name: c.issuer.name, authorisation: c.issuer.authorisation, home_member_state: c.issuer.homeMemberState },
    whitepaper: c.whitepaper ? { id: c.whitepaper.id, asset_code: c.whitepaper.assetCode, version: c.whitepaper.version, status: c.whitepaper.status, published_at: c.whitepaper.publishedAt } : null,
    compliance_issues: c.complianceIssues,
    recommendations: c.recommendations,
    checked_at: c.checkedAt.toISOString(),
  };
}

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
}
