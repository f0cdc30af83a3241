/**
 * Partner onboarding (POST /api/v1/partner/onboard, platform operators only) and the partner's
 * credentials. A partner is an organisation building on the platform: it gets a platform user of
 * its own, a production and a sandbox API key (bound to its modules, IP allow-list and rate
 * limits), a partner key (fpk_…, sent as X-Partner-Key on the partner rows) and, when it gave a
 * webhook_url, a webhook endpoint. Every secret is shown once in the onboarding result and stored
 * as a hash only (the webhook secret as the webhook area keeps it: it signs the deliveries).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { createApiKey, parseCidr } from '../auth/api-keys';
import { hashPassword } from '../auth/passwords';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { loadConfig } from '../platform/config';
import { createWebhook, generateSecret } from '../webhooks';
import { sealPartnerWebhookSecret } from './webhook-secret';
import { assertSafeWebhookUrl } from '../webhooks/url-safety';
import { MODULES, type Module } from './modules';
import { SDK_LANGUAGES } from './sdk/request';

export const TIERS = ['starter', 'growth', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** Requests per minute of each tier unless rate_limit_override says otherwise. */
export const TIER_RATE_PER_MINUTE: Record<Tier, number> = { starter: 100, growth: 600, enterprise: 3000 };

/** A burst is what may arrive within 10 seconds: a third of the minute (twice the even pace). */
export const burstFor = (perMinute: number) => Math.max(1, Math.ceil(perMinute / 3));

export interface OnboardRequest {
  organization_name: string;
  contact_email: string;
  tier: Tier;
  modules: string[];
  sdk_languages?: string[];
  webhook_url?: string;
  ip_whitelist?: string[];
  rate_limit_override?: number;
  metadata?: Record<string, unknown>;
}

export interface Partner {
  id: string;
  organizationName: string;
  contactEmail: string;
  tier: Tier;
  status: 'active' | 'suspended';
  modules: Module[];
  sdkLanguages: string[];
  ipWhitelist: string[];
  requestsPerMinute: number;
  burstLimit: number;
  metadata: Record<string, unknown>;
  userId: string;
  webhookId: string | null;
  complianceReview: string;
  createdAt: Date;
}

export interface OnboardResult {
  partner: Partner;
  credentials: { apiKey: string; sandboxKey: string; partnerKey: string; webhookSecret: string };
}

type Row = Record<string, any>;

export function toPartner(r: Row): Partner {
  return {
    id: r.id,
    organizationName: r.organization_name,
    contactEmail: r.contact_email,
    tier: r.tier,
    status: r.status,
    modules: r.modules,
    sdkLanguages: r.sdk_languages,
    ipWhitelist: r.ip_whitelist,
    requestsPerMinute: r.requests_per_minute,
    burstLimit: r.burst_limit,
    metadata: r.metadata,
    userId: r.user_id,
    webhookId: r.webhook_id,
    complianceReview: r.compliance_review,
    createdAt: r.created_at,
  };
}

export const hashPartnerKey = (value: string) => createHash('sha256').update(value).digest('hex');

function validate(b: OnboardRequest): { modules: Module[]; languages: string[]; cidrs: string[]; perMinute: number } {
  const modules = [...new Set(b.modules.map((m) => String(m).trim().toLowerCase()))] as Module[];
  modules.forEach((m, i) => {
    if (!MODULES.includes(m)) throw new DomainError('UNKNOWN_MODULE', `Unknown module ${m.slice(0, 40)}; modules: ${MODULES.join(', ')}`, `/modules/${i}`);
  });
  if (modules.length === 0) throw new DomainError('UNKNOWN_MODULE', 'Enable at least one module', '/modules');
  const languages = [...new Set((b.sdk_languages ?? []).map((l) => String(l).trim().toLowerCase()))];
  languages.forEach((l, i) => {
    if (!(SDK_LANGUAGES as readonly string[]).includes(l)) {
      throw new DomainError('UNSUPPORTED_SDK_LANGUAGE', `SDKs are generated for ${SDK_LANGUAGES.join(' and ')}`, `/sdk_languages/${i}`);
    }
  });
  const cidrs = (b.ip_whitelist ?? []).map((c, i) => {
    const parsed = parseCidr(String(c));
    if (!parsed || !String(c).includes('/')) throw new DomainError('INVALID_CIDR', `${String(c).slice(0, 60)} is not a CIDR block (e.g. 203.0.113.0/24)`, `/ip_whitelist/${i}`);
    return `${parsed.address}/${parsed.prefix}`;
  });
  const perMinute = b.rate_limit_override ?? TIER_RATE_PER_MINUTE[b.tier];
  return { modules, languages, cidrs, perMinute };
}

/** Onboards a partner in one transaction (its user, keys and partner key); then its webhook. */
export async function onboardPartner(p: Principal, b: OnboardRequest): Promise<OnboardResult> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators onboard partners');
  const { modules, languages, cidrs, perMinute } = validate(b);
  // Checked before anything is written: a refused URL leaves no partner behind.
  if (b.webhook_url !== undefined) await assertSafeWebhookUrl(b.webhook_url);
  const id = newId('ptn');
  const partnerKey = `fpk_${randomBytes(32).toString('base64url')}`;
  const webhookSecret = generateSecret();
  const burst = burstFor(perMinute);
  const result = await withTransaction(async (c) => {
    // The partner's own platform user: an unreachable address (.invalid), no usable password.
    const userId = newId('usr');
    await c.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, $2, $3, $4)`, [
      userId,
      b.organization_name.trim(),
      `${id}@partners.invalid`,
      await hashPassword(randomBytes(32).toString('base64url')),
    ]);
    await c.query(
      `INSERT INTO partners (id, organization_name, contact_email, tier, status, modules, sdk_languages, ip_whitelist, requests_per_minute, burst_limit,
                             metadata, user_id, partner_key_hash, partner_key_prefix, created_by)
       VALUES ($1, $2, $3, $4, 'active', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [id, b.organization_name.trim(), b.contact_email.trim().toLowerCase(), b.tier, modules, languages, cidrs, perMinute, burst, JSON.stringify(b.metadata ?? {}), userId, hashPartnerKey(partnerKey), partnerKey.slice(0, 12), p.userId],
    );
    const keys: Record<string, string> = {};
    for (const environment of ['production', 'sandbox'] as const) {
      const k = await createApiKey(
        { userId, name: `${b.organization_name.trim().slice(0, 80)} (${environment})`, environment, permissions: ['read', 'write', 'delete'], ipAllowlist: cidrs, rateLimitPerMinute: perMinute },
        c,
      );
      await c.query('UPDATE api_keys SET partner_id = $2, burst_limit = $3 WHERE id = $1', [k.record.id, id, burst]);
      keys[environment] = k.value;
    }
    // Issued whether or not a webhook_url is given: it signs the partner's webhooks whenever one is set.
    await c.query('UPDATE partners SET webhook_secret_sealed = $2 WHERE id = $1', [id, sealPartnerWebhookSecret(id, webhookSecret)]);
    const { rows } = await c.query<Row>('SELECT * FROM partners WHERE id = $1', [id]);
    const partner = toPartner(rows[0]);
    await writeOutboxEvent(c, {
      type: 'partner.onboarded',
      environment: 'production',
      userId,
      aggregateType: 'partner',
      aggregateId: id,
      data: { partner_id: id, organization_name: partner.organizationName, tier: partner.tier, modules_enabled: modules, sdk_languages: languages, created_at: partner.createdAt.toISOString() },
    });
    return { partner, keys };
  });
  if (b.webhook_url !== undefined) {
    // Deliveries of the partner's sandbox events (where integration starts), signed with the secret above.
    const w = await createWebhook({ userId: result.partner.userId, environment: 'sandbox' }, { url: b.webhook_url, events: ['*'], description: `${result.partner.organizationName} (partner onboarding)` });
    await getPool().query('UPDATE partners SET webhook_id = $2, updated_at = now() WHERE id = $1', [id, w.webhook.id]);
    result.partner.webhookId = w.webhook.id;
  }
  return { partner: result.partner, credentials: { apiKey: result.keys.production, sandboxKey: result.keys.sandbox, partnerKey, webhookSecret } };
}

export async function getPartner(id: string, c: Queryable = getPool()): Promise<Partner | null> {
  const { rows } = await c.query<Row>('SELECT * FROM partners WHERE id = $1', [id]);
  return rows[0] ? toPartner(rows[0]) : null;
}

/** The onboarding checklist from real state: keys, webhook, a generated SDK, a successful sandbox call. */
export async function onboardingChecklist(partner: Partner): Promise<{ apiKeyGenerated: boolean; webhookConfigured: boolean; sdkGenerated: boolean; sandboxTested: boolean; complianceReview: string }> {
  const { rows } = await getPool().query<{ keys: number; tested: boolean; sdks: number; webhooks: boolean }>(
    `SELECT (SELECT count(*)::int FROM api_keys WHERE partner_id = $1 AND revoked_at IS NULL) AS keys,
            EXISTS (SELECT 1 FROM webhooks WHERE user_id = $2 AND active) AS webhooks,
            EXISTS (SELECT 1 FROM api_keys WHERE partner_id = $1 AND environment = 'sandbox' AND last_used_at IS NOT NULL) AS tested,
            (SELECT count(*)::int FROM sdk_generations WHERE partner_id = $1 AND status = 'completed') AS sdks`,
    [partner.id, partner.userId],
  );
  // Any active webhook of the partner's, registered at onboarding or later.
  return { apiKeyGenerated: rows[0].keys > 0, webhookConfigured: rows[0].webhooks, sdkGenerated: rows[0].sdks > 0, sandboxTested: rows[0].tested, complianceReview: partner.complianceReview };
}

/** URLs the onboarding result names (the API itself, and the live dashboard). */
export function partnerUrls(): { sandbox_url: string; dashboard_url: string } {
  const base = loadConfig().publicUrl.replace(/\/$/, '') || `http://localhost:${loadConfig().port}`;
  return { sandbox_url: `${base}/api`, dashboard_url: `${base}/api/v1/live-dashboard` };
}
