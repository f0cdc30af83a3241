/**
 * White-label configuration of a partner (PUT /partner/config/whitelabel): logo (https URL),
 * primary colour (#RRGGBB) and features. Every PUT publishes a new version (the old ones stay,
 * readable back) and emits widget.deployed; the latest version's features switch API areas off
 * for the partner's tenants (domain/partner/context.ts: 403 FEATURE_DISABLED).
 */
import { getPool, withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DomainError } from '../platform/errors';
import { credentialsChanged } from '../events/cache-notices';
import { FEATURES, type Feature } from './modules';
import type { Partner } from './partners';

export interface WhitelabelConfig {
  partnerId: string;
  version: number;
  logoUrl: string;
  primaryColor: string;
  features: Record<Feature, boolean>;
  publishedAt: Date;
}

const toConfig = (r: Record<string, any>): WhitelabelConfig => ({ partnerId: r.partner_id, version: r.version, logoUrl: r.logo_url, primaryColor: r.primary_color, features: r.features, publishedAt: r.published_at });

function validate(b: { logo_url: string; primary_color: string; features?: Record<string, unknown> }): { logoUrl: string; color: string; features: Record<Feature, boolean> } {
  let url: URL;
  try {
    url = new URL(b.logo_url);
  } catch {
    throw new DomainError('INVALID_LOGO_URL', 'logo_url must be an https URL', '/logo_url');
  }
  if (url.protocol !== 'https:' || url.username || url.password) throw new DomainError('INVALID_LOGO_URL', 'logo_url must be an https URL without credentials', '/logo_url');
  if (!/^#[0-9a-fA-F]{6}$/.test(b.primary_color)) throw new DomainError('INVALID_COLOR', 'primary_color must be #RRGGBB', '/primary_color');
  const features = Object.fromEntries(FEATURES.map((f) => [f, true])) as Record<Feature, boolean>;
  for (const [k, v] of Object.entries(b.features ?? {})) {
    if (!(FEATURES as readonly string[]).includes(k)) throw new DomainError('UNKNOWN_FEATURE', `Unknown feature ${k.slice(0, 40)}; features: ${FEATURES.join(', ')}`, `/features/${k.slice(0, 40)}`);
    if (typeof v !== 'boolean') throw new DomainError('VALIDATION_ERROR', 'features are booleans', `/features/${k}`);
    features[k as Feature] = v;
  }
  return { logoUrl: url.toString(), color: b.primary_color.toUpperCase(), features };
}

export async function publishWhitelabel(partner: Partner, publishedBy: string, b: { logo_url: string; primary_color: string; features?: Record<string, unknown> }): Promise<WhitelabelConfig> {
  const v = validate(b);
  const config = await withTransaction(async (c) => {
    await c.query('SELECT 1 FROM partners WHERE id = $1 FOR UPDATE', [partner.id]);
    const { rows } = await c.query(
      `INSERT INTO partner_whitelabel_configs (partner_id, version, logo_url, primary_color, features, published_by)
       VALUES ($1, COALESCE((SELECT max(version) FROM partner_whitelabel_configs WHERE partner_id = $1), 0) + 1, $2, $3, $4, $5) RETURNING *`,
      [partner.id, v.logoUrl, v.color, JSON.stringify(v.features), publishedBy],
    );
    const cfg = toConfig(rows[0]);
    await writeOutboxEvent(c, {
      type: 'widget.deployed',
      environment: 'production',
      userId: partner.userId,
      aggregateType: 'partner',
      aggregateId: partner.id,
      data: { partner_id: partner.id, version: cfg.version, logo_url: cfg.logoUrl, primary_color: cfg.primaryColor, features: cfg.features, published_at: cfg.publishedAt.toISOString() },
    });
    return cfg;
  });
  // After the commit: the features it switches off apply on every process's next request.
  await credentialsChanged({ cache: 'partners', partnerId: partner.id });
  return config;
}

/** The latest published configuration and the earlier version numbers (NOT_CONFIGURED 404 before the first). */
export async function getWhitelabel(partner: Partner): Promise<{ current: WhitelabelConfig; versions: number[] }> {
  const { rows } = await getPool().query(`SELECT * FROM partner_whitelabel_configs WHERE partner_id = $1 ORDER BY version DESC`, [partner.id]);
  if (!rows[0]) throw new DomainError('WHITELABEL_NOT_CONFIGURED', 'No white-label configuration was published yet');
  return { current: toConfig(rows[0]), versions: rows.map((r) => r.version) };
}
