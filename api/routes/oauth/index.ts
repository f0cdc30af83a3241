import type { FastifyInstance } from 'fastify';
import oauthClientRoutes from './clients';
import oauthPageRoutes from './page';
import oauthProtocolRoutes from './protocol';

/** OAuth 2.0 authorization server (docs/oauth.md): client registration, consent page, protocol endpoints. */
export default async function oauthRoutes(app: FastifyInstance) {
  await app.register(oauthClientRoutes);
  await app.register(oauthPageRoutes);
  // Its own scope: a form parser and the RFC 6749 error format apply to these endpoints only.
  await app.register(oauthProtocolRoutes);
}
