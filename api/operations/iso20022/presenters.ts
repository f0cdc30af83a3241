/** Wire shapes of the ISO 20022 area: XML by default, the JSON envelope when the client asks for it. */
import type { FastifyRequest } from 'fastify';

/** Whether the client prefers JSON to XML (Accept names application/json and its first choice is not XML). */
export function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) && !/\b(application|text)\/xml\b/i.test(accept.split(',')[0] ?? '');
}
