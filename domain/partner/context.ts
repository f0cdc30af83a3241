/**
 * What a request made with a partner's credentials, or by a tenant's customer, may reach: the
 * partner's modules, the partner key check for the partner rows, and the tenant's disabled
 * features from the partner's published white-label configuration. Read on every such request,
 * so kept in memory for a few seconds; a change reaches every process's copy at once by a notice
 * (domain/events/cache-notices.ts), and nothing is reused while those are not heard.
 */
import type { Principal } from '../auth/principal';
import { getPool, onPoolClosed } from '../db/pool';
import { cacheEpoch, cachesTrusted, canStore, registerCache } from '../events/cache-notices';
import { DomainError } from '../platform/errors';
import { FEATURES, MODULE_OF_FEATURE, moduleOfTags, type Module } from './modules';
import { getPartner, hashPartnerKey, type Partner } from './partners';

const TTL_MS = 5_000;
const partners = new Map<string, { at: number; partner: Partner | null }>();
const tenantDisabled = new Map<string, { at: number; disabled: Set<Module>; partnerId: string | null }>();
onPoolClosed(() => {
  partners.clear();
  tenantDisabled.clear();
});

export function forgetPartnerContext(): void {
  partners.clear();
  tenantDisabled.clear();
}
registerCache('partners', (n) => {
  if (!n || n.cache !== 'partners' || !n.partnerId) return forgetPartnerContext();
  partners.delete(n.partnerId);
  for (const [tenant, e] of tenantDisabled) if (e.partnerId === n.partnerId) tenantDisabled.delete(tenant);
});

async function cachedPartner(id: string): Promise<Partner | null> {
  const hit = cachesTrusted() ? partners.get(id) : undefined;
  if (hit && Date.now() - hit.at < TTL_MS) return hit.partner;
  const taken = cacheEpoch();
  const partner = await getPartner(id);
  if (canStore(taken)) partners.set(id, { at: Date.now(), partner });
  return partner;
}

/** The modules switched off for a tenant's customers by its partner's latest white-label version. */
async function disabledFor(tenantId: string): Promise<{ disabled: Set<Module>; partnerId: string | null }> {
  const hit = cachesTrusted() ? tenantDisabled.get(tenantId) : undefined;
  if (hit && Date.now() - hit.at < TTL_MS) return hit;
  const taken = cacheEpoch();
  const { rows } = await getPool().query<{ partner_id: string; features: Record<string, boolean> | null }>(
    `SELECT t.partner_id, (SELECT c.features FROM partner_whitelabel_configs c WHERE c.partner_id = t.partner_id ORDER BY c.version DESC LIMIT 1) AS features
       FROM partner_tenants t WHERE t.id = $1`,
    [tenantId],
  );
  const disabled = new Set<Module>();
  for (const f of FEATURES) if (rows[0]?.features?.[f] === false) disabled.add(MODULE_OF_FEATURE[f]);
  const entry = { at: Date.now(), disabled, partnerId: rows[0]?.partner_id ?? null };
  if (canStore(taken)) tenantDisabled.set(tenantId, entry);
  return entry;
}

/**
 * The area rules for a route (by its OpenAPI tags): a partner key may call only its partner's
 * modules (403 MODULE_NOT_ENABLED); a tenant's customer may not use a feature its partner switched
 * off (403 FEATURE_DISABLED).
 */
export async function checkAreaAccess(p: Principal, tags: readonly string[] | undefined): Promise<void> {
  const area = moduleOfTags(tags);
  if (!area) return;
  if (p.partnerId) {
    const partner = await cachedPartner(p.partnerId);
    if (!partner || partner.status !== 'active') throw new DomainError('PARTNER_SUSPENDED', 'The partner is not active');
    if (!partner.modules.includes(area)) throw new DomainError('MODULE_NOT_ENABLED', `The ${area} module is not enabled for this partner (modules: ${partner.modules.join(', ')})`);
  }
  if (p.tenantId && (await disabledFor(p.tenantId)).disabled.has(area)) {
    throw new DomainError('FEATURE_DISABLED', `The ${area} feature is switched off for this tenant`);
  }
}

/**
 * The partner rows need the partner's bearer key and its X-Partner-Key: a missing or unknown
 * partner key is 401 PARTNER_KEY_INVALID; a valid key of another partner than the bearer key's (or
 * with a key that is not a partner's) is 403 PARTNER_KEY_MISMATCH.
 */
export async function checkPartnerKey(p: Principal, header: string | undefined): Promise<Partner> {
  if (!header || !/^fpk_[A-Za-z0-9_-]{20,100}$/.test(header)) throw new DomainError('PARTNER_KEY_INVALID', 'X-Partner-Key with a partner key (fpk_…) is required');
  const { rows } = await getPool().query<{ id: string }>('SELECT id FROM partners WHERE partner_key_hash = $1', [hashPartnerKey(header)]);
  if (!rows[0]) throw new DomainError('PARTNER_KEY_INVALID', 'The partner key is not valid');
  if (p.partnerId !== rows[0].id) throw new DomainError('PARTNER_KEY_MISMATCH', "The partner key does not belong to the bearer key's partner");
  const partner = await cachedPartner(rows[0].id);
  if (!partner || partner.status !== 'active') throw new DomainError('PARTNER_SUSPENDED', 'The partner is not active');
  return partner;
}
