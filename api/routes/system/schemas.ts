/** Wire schemas of the system area (liveness, readiness). Public: no credentials. */
import { publicErrorResponses } from '../../schemas';

const dataObject = { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } };

export const healthResponse = { 200: dataObject, ...publicErrorResponses };

export const readyResponse = {
  200: { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } },
  ...publicErrorResponses,
  503: { ...publicErrorResponses['503'], description: 'Database or Temporal unreachable: meta.components says which' },
};
