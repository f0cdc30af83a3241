/**
 * What every Berlin Group call shares (docs/open-banking.md): the TPP identified by its certificate
 * (the header a TLS-terminating proxy sets from the mutual-TLS client certificate), the PSD2 role the
 * route needs, an X-Request-ID (a UUID, required, echoed on the response), and refusals that also
 * carry Berlin Group `tppMessages` beside the platform's error envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Psd2Role } from '../../../domain/open-banking/certificates';
import { TPP_CERTIFICATE_HEADER } from '../../../domain/open-banking/certificates';
import { identifyTpp, requireRole, type Tpp } from '../../../domain/open-banking/tpps';
import { DomainError } from '../../../domain/platform/errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The TPP of an open-banking call (set by tppCall). */
    tpp?: Tpp;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The X-Request-ID of a Berlin Group call: required, a UUID. */
export function requestIdOf(request: FastifyRequest): string {
  const v = request.headers['x-request-id'];
  if (typeof v !== 'string' || !UUID.test(v)) throw new DomainError('FORMAT_ERROR', 'X-Request-ID (a UUID) is required on every open-banking call', '/headers/x-request-id');
  return v.toLowerCase();
}

/** A request header's trimmed value, or null when absent or blank. */
export function headerOf(request: FastifyRequest, name: string): string | null {
  const v = request.headers[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/**
 * The SCA approach a creation will run (the ASPSP-SCA-Approach header of its 201): DECOUPLED when
 * the TPP prefers it and names the customer (PSU-ID), as startAuthorisation decides, else REDIRECT.
 */
export function scaApproachOf(request: FastifyRequest): 'REDIRECT' | 'DECOUPLED' {
  return headerOf(request, 'tpp-decoupled-preferred') === 'true' && headerOf(request, 'psu-id') !== null ? 'DECOUPLED' : 'REDIRECT';
}

/** The customer is present when the TPP forwards their IP address (PSU-IP-Address). */
export function psuPresent(request: FastifyRequest): boolean {
  const v = request.headers['psu-ip-address'];
  return typeof v === 'string' && v.trim() !== '';
}

/**
 * X-Request-ID, then the TPP by its certificate, then the role the route needs. Routes run it as
 * preValidation: a TPP without the role is refused alike whatever body it sends (as a credential
 * without the permission is, api/plugins/auth.ts), never told what its body lacks.
 */
export function tppCall(role: Psd2Role) {
  return async (request: FastifyRequest) => {
    requestIdOf(request);
    const header = request.headers[TPP_CERTIFICATE_HEADER];
    const tpp = await identifyTpp(typeof header === 'string' ? header : undefined);
    requireRole(tpp, role);
    request.tpp = tpp;
  };
}

export function tppOf(request: FastifyRequest): Tpp {
  if (!request.tpp) throw new Error('open-banking route reached without tppCall');
  return request.tpp;
}

/** Echoes X-Request-ID and adds Berlin Group tppMessages to refusals, for every route of the area. */
export function registerOpenBankingConventions(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const id = request.headers['x-request-id'];
    if (typeof id === 'string' && id.length <= 100) reply.header('x-request-id', id);
    if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    try {
      const body = JSON.parse(payload) as { errors?: Array<{ code: string; detail?: string; source?: { pointer?: string } }>; tppMessages?: unknown };
      if (!Array.isArray(body.errors) || body.tppMessages) return payload;
      body.tppMessages = body.errors.map((e) => ({ category: 'ERROR', code: e.code, text: e.detail, ...(e.source?.pointer ? { path: e.source.pointer } : {}) }));
      return JSON.stringify(body);
    } catch {
      return payload;
    }
  });
}
