/**
 * TPP registry routes (under /api/v1/open-banking): a third-party provider registers its eIDAS
 * certificate, reads itself back by the mutual-TLS certificate, and sandbox developers get test
 * certificates from the platform's sandbox CA. Rules in domain/open-banking.
 */
import type { FastifyInstance } from 'fastify';
import { AUTHORISATION_NUMBER_PATTERN, PSD2_ROLES, TPP_CERTIFICATE_HEADER, type Psd2Role } from '../../../domain/open-banking/certificates';
import { issueSandboxCertificateFor } from '../../../domain/open-banking/sandbox-ca';
import { identifyTpp, registerTpp, type Tpp } from '../../../domain/open-banking/tpps';
import { envelope, errorEnvelopeSchema, errorResponses, errorResponsesFor, timestamp } from '../../schemas';
import { caller } from '../../operations/caller';

const TAGS = ['Open banking'];

const certificateErrors = {
  description: 'TPP certificate missing, not valid or not registered, expired, or blocked (CERTIFICATE_MISSING, CERTIFICATE_INVALID, CERTIFICATE_EXPIRED, CERTIFICATE_BLOCKED)',
  content: { 'application/json': { schema: errorEnvelopeSchema } },
};
const unavailable = {
  description: 'The production trust store is not configured or readable (TRUST_STORE_NOT_CONFIGURED), or a dependency is down; nothing was done',
  content: { 'application/json': { schema: errorEnvelopeSchema } },
};
/** Public routes: no platform credential, so no 403/404; 401 is about the certificate. */
const publicErrors = (body: boolean) => ({
  ...errorResponsesFor(body ? [400, 405, 409, 413, 414, 415, 422, 429, 500] : [405, 414, 422, 429, 500]),
  401: certificateErrors,
  503: unavailable,
});

const roleEnum = { type: 'string', enum: [...PSD2_ROLES] };
const tppSchema = {
  type: 'object',
  properties: {
    tpp_id: { type: 'string' },
    name: { type: 'string' },
    authorisation_number: { type: 'string', description: 'Subject organizationIdentifier (2.5.4.97), e.g. PSDDE-BAFIN-123456' },
    roles: { type: 'array', items: roleEnum },
    nca_name: { type: 'string' },
    nca_id: { type: 'string' },
    environment: { type: 'string', enum: ['sandbox', 'production'] },
    certificate_fingerprint: { type: 'string', description: 'SHA-256 of the certificate DER, lower-case hex' },
    redirect_domains: { type: 'array', items: { type: 'string' }, description: "The certificate's DNS names: where TPP-Redirect-URI may point" },
    valid_until: timestamp,
    status: { type: 'string', enum: ['active', 'blocked'] },
    created_at: timestamp,
  },
};

function presentTpp(t: Tpp) {
  return {
    tpp_id: t.id,
    name: t.name,
    authorisation_number: t.authorisationNumber,
    roles: t.roles,
    nca_name: t.ncaName,
    nca_id: t.ncaId,
    environment: t.environment,
    certificate_fingerprint: t.fingerprint,
    redirect_domains: t.redirectDomains,
    valid_until: t.notAfter.toISOString(),
    status: t.status,
    created_at: t.createdAt.toISOString(),
  };
}

export function tppRoutes(app: FastifyInstance) {
  app.post<{ Body: { certificate: string } }>(
    '/tpps',
    {
      // Registering is idempotent by the certificate's fingerprint itself.
      config: { public: true, idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Register a TPP by its eIDAS certificate (QWAC/QSealC with the ETSI PSD2 QCStatement)',
        description:
          'The certificate names the TPP (CN), its PSD2 authorisation number (organizationIdentifier), roles (PSP_AS, PSP_PI, PSP_AI, PSP_IC) and competent authority. Signed by the platform\'s sandbox CA: a sandbox TPP; issued by a CA of the production trust store: a production TPP. 201 when registered now, 200 with the same TPP when the certificate was registered before.',
        security: [],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['certificate'],
          properties: { certificate: { type: 'string', minLength: 1, maxLength: 16_384, description: 'The certificate, PEM' } },
        },
        response: { 200: envelope(tppSchema), 201: envelope(tppSchema), ...publicErrors(true) },
      },
    },
    async (request, reply) => {
      const { tpp, created } = await registerTpp(request.body.certificate);
      return reply.code(created ? 201 : 200).send({ data: presentTpp(tpp) });
    },
  );

  app.get<{ Headers: Record<string, string | undefined> }>(
    '/tpps/me',
    {
      config: { public: true },
      schema: {
        tags: TAGS,
        summary: 'The TPP the mutual-TLS client certificate names',
        security: [],
        headers: {
          type: 'object',
          properties: {
            [TPP_CERTIFICATE_HEADER]: {
              type: 'string',
              description:
                "The TPP's certificate as the TLS-terminating proxy forwards the mutual-TLS client certificate (URL-encoded PEM; plain PEM and base64 DER are read too); the proxy must overwrite any value a client sends.",
            },
          },
        },
        response: { 200: envelope(tppSchema), ...publicErrors(false) },
      },
    },
    async (request) => ({ data: presentTpp(await identifyTpp(request.headers[TPP_CERTIFICATE_HEADER])) }),
  );

  app.post<{ Body: { name: string; roles: Psd2Role[]; authorisation_number?: string; redirect_domains?: string[] } }>(
    '/sandbox/certificates',
    {
      // The answer carries a private key: it is never stored for replays.
      config: { idempotency: false },
      schema: {
        tags: TAGS,
        summary: 'Issue a sandbox TPP certificate and its private key (sandbox credentials only)',
        description:
          'A QWAC-profile certificate signed by the platform\'s sandbox CA (ECDSA P-256) with the ETSI PSD2 QCStatement for these roles, NCA "Sandbox NCA" (XX-SANDBOX), valid 365 days; register it with POST /tpps and present it as the mutual-TLS client certificate. The private key (PKCS#8 PEM) is shown once and kept nowhere. A production key is refused (403 ENVIRONMENT_NOT_PERMITTED).',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'roles'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 64, description: 'The TPP name (subject CN and O)' },
            roles: { type: 'array', minItems: 1, maxItems: PSD2_ROLES.length, uniqueItems: true, items: roleEnum },
            authorisation_number: { type: 'string', pattern: AUTHORISATION_NUMBER_PATTERN, maxLength: 80, description: 'Default PSDXX-SANDBOX-<8 random digits>' },
            redirect_domains: {
              type: 'array',
              maxItems: 10,
              uniqueItems: true,
              items: { type: 'string', minLength: 3, maxLength: 253 },
              description: "The TPP's domains, written into the certificate's subjectAltName (dNSName): TPP-Redirect-URI and TPP-Nok-Redirect-URI must be https URLs on one of them (or below; *.example.com covers subdomains only)",
            },
          },
        },
        response: {
          201: envelope({
            type: 'object',
            properties: {
              certificate: { type: 'string', description: 'PEM' },
              private_key: { type: 'string', description: 'PKCS#8 PEM, shown once' },
              authorisation_number: { type: 'string' },
              roles: { type: 'array', items: roleEnum },
              valid_until: timestamp,
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const issued = await issueSandboxCertificateFor(caller(request), { name: b.name, roles: b.roles, authorisationNumber: b.authorisation_number, redirectDomains: b.redirect_domains });
      return reply.code(201).send({
        data: {
          certificate: issued.certificate,
          private_key: issued.privateKey,
          authorisation_number: issued.authorisationNumber,
          roles: issued.roles,
          valid_until: issued.notAfter.toISOString(),
        },
      });
    },
  );
}
