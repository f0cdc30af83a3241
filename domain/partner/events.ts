/** Data schemas of partner.onboarded and widget.deployed (domain/events/catalog.ts uses them). */
type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const strings: Schema = { type: 'array', items: str };
const ts: Schema = { type: 'string', format: 'date-time' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: false });

export const PARTNER_ONBOARDED: Schema = obj({
  partner_id: { type: 'string', pattern: '^ptn_' },
  organization_name: str,
  tier: { type: 'string', enum: ['starter', 'growth', 'enterprise'] },
  modules_enabled: strings,
  sdk_languages: strings,
  created_at: ts,
});

export const WIDGET_DEPLOYED: Schema = obj({
  partner_id: { type: 'string', pattern: '^ptn_' },
  version: { type: 'integer', minimum: 1 },
  logo_url: str,
  primary_color: { type: 'string', pattern: '^#[0-9A-F]{6}$' },
  features: { type: 'object', additionalProperties: { type: 'boolean' } },
  published_at: ts,
});
