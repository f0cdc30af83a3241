/** Data schema of sdk.generated (domain/events/catalog.ts lists it), as domain/partner/sdk/index.ts writes it. */
import { SDK_API_VERSIONS, SDK_LANGUAGES } from './request';

type Schema = Record<string, unknown>;
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: false });
const hex64: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };

/** One event per completed generation, in the transaction that records its result. */
export const SDK_GENERATED: Schema = obj({
  generation_id: { type: 'string', pattern: '^sdkg_' },
  partner_id: { type: ['string', 'null'] },
  api_version: { type: 'string', enum: [...SDK_API_VERSIONS] },
  languages: { type: 'array', items: { type: 'string', enum: [...SDK_LANGUAGES] } },
  modules: { type: 'array', items: { type: 'string' } },
  // Every package was already built (a cache hit: no workflow ran).
  cached: { type: 'boolean' },
  packages: {
    type: 'array',
    items: obj({
      package_id: { type: 'string', pattern: '^sdkp_' },
      language: { type: 'string', enum: [...SDK_LANGUAGES] },
      package_name: { type: 'string' },
      version: { type: 'string' },
      filename: { type: 'string' },
      sha256: hex64,
      size: { type: 'integer', minimum: 1 },
      cached: { type: 'boolean' },
    }),
  },
  completed_at: { type: 'string', format: 'date-time' },
});
