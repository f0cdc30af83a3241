/** Sanctions screening routes: screen names, the loaded list's status, an operator's reload. */
import type { FastifyInstance } from 'fastify';
import { reloadSanctionsList, sanctionsStatus, screenForCaller } from '../../../domain/regtech/sanctions';
import { envelope, errorResponses } from '../../schemas';
import { principalOf } from '../../types';
import { presentListStatus, screenBody, presentScreening, presentReload, TAG, statusSchema, resultSchema } from '../../operations/regtech/sanctions';

export default async function sanctionsRoutes(app: FastifyInstance) {
  app.post<{ Body: { names: string[] } }>(
    '/api/v2/regtech/sanctions/screen',
    {
      config: { idempotency: false },
      schema: {
        tags: [TAG],
        summary: 'Screen names against the OFAC SDN list',
        description:
          'Each name is normalised (case, diacritics, punctuation, word order) and scored with Jaro-Winkler against every primary name and ' +
          'alias of the loaded list, keeping each entry’s best score; a score ≥ SANCTIONS_MATCH_THRESHOLD (default 0.92) is a hit. ' +
          '1 to 100 names. Reads nothing of yours and stores nothing. docs/regtech.md.',
        body: screenBody,
        response: { 200: envelope({ type: 'object', properties: { list_version: { type: 'string' }, results: { type: 'array', items: resultSchema } } }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentScreening(await screenForCaller(request.body.names)) }),
  );

  app.get('/api/v2/regtech/sanctions/status', { schema: { tags: [TAG], summary: 'The loaded sanctions list: version, counts, load time and age', response: { 200: envelope(statusSchema), ...errorResponses } } }, async () => ({
    data: presentListStatus(await sanctionsStatus()),
  }));

  app.post(
    '/api/v2/regtech/sanctions/reload',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Reload the sanctions list from its files (platform operators only)',
        description: 'Reads SANCTIONS_DIR again and replaces the loaded list in one transaction; screening switches to the new version at once.',
        response: { 200: envelope({ type: 'object', properties: { ...statusSchema.properties, loaded: { type: 'boolean' } } }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentReload(await reloadSanctionsList(principalOf(request))) }),
  );
}
