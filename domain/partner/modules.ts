/**
 * The API areas a partner's keys may call (onboarding `modules`) and its tenants may use
 * (white-label `features`), by the OpenAPI tag of each route. Routes of the platform itself
 * (authentication, API keys, system, partner, operations) belong to no module and are always open.
 */
export const MODULES = ['accounts', 'payments', 'crosschain', 'defi', 'gcu', 'regtech', 'mobile', 'webhooks', 'iso20022', 'dashboard', 'open_banking', 'microfinance'] as const;
export type Module = (typeof MODULES)[number];

const MODULE_BY_TAG: Record<string, Module> = {
  Accounts: 'accounts',
  'Accounts (unversioned)': 'accounts',
  Transactions: 'accounts',
  'Transactions (unversioned)': 'accounts',
  Transfers: 'accounts',
  'Transfers (unversioned)': 'accounts',
  Ledger: 'accounts',
  // Questions about the caller's own transactions.
  'AI queries': 'accounts',
  'Payment rails': 'payments',
  Interledger: 'payments',
  // HTTP-native payments: payment-gated SMS and x402.
  SMS: 'payments',
  x402: 'payments',
  'Cross-chain': 'crosschain',
  'Decentralized finance': 'defi',
  GCU: 'gcu',
  'GCU governance': 'gcu',
  Baskets: 'gcu',
  Regtech: 'regtech',
  Mobile: 'mobile',
  Webhooks: 'webhooks',
  'ISO 20022': 'iso20022',
  'Live dashboard': 'dashboard',
  // PSD2 access to accounts for third-party providers (Berlin Group NextGenPSD2).
  'Open banking': 'open_banking',
  // Group lending, loans, teller cash and loan-loss provisioning (docs/microfinance.md).
  Microfinance: 'microfinance',
};

/** The module a route belongs to (by its first tag), or null for the platform's own routes. */
export function moduleOfTags(tags: readonly string[] | undefined): Module | null {
  return tags && tags.length > 0 ? (MODULE_BY_TAG[tags[0]] ?? null) : null;
}

/**
 * White-label features switch areas off for a partner's tenants. Names the spec gives (defi,
 * crosschain, lending) and the modules; `lending` is the DeFi lending area, so it maps to defi.
 */
export const FEATURES = ['defi', 'crosschain', 'lending', 'payments', 'gcu', 'regtech', 'mobile', 'webhooks', 'iso20022'] as const;
export type Feature = (typeof FEATURES)[number];
export const MODULE_OF_FEATURE: Record<Feature, Module> = {
  defi: 'defi',
  crosschain: 'crosschain',
  lending: 'defi',
  payments: 'payments',
  gcu: 'gcu',
  regtech: 'regtech',
  mobile: 'mobile',
  webhooks: 'webhooks',
  iso20022: 'iso20022',
};
