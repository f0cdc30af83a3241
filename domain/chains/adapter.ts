/**
 * The chain adapter: how the platform sends transactions and reads their progress. Workflows
 * never talk to a chain directly: their activities call an adapter, passing the workflow's own
 * clock as `at`, so the sandbox chain's blocks, confirmations and gas follow workflow time
 * (time-skipping tests see finality arrive). The API key's environment selects the adapter:
 * sandbox keys get the sandbox chain (domain/chains/sandbox.ts, state in PostgreSQL), production
 * keys the RPC adapter (domain/chains/production.ts, viem), configured by CHAIN_RPC_URLS.
 */
import type { Environment } from '../platform/environment';
import { ViemChainAdapter } from './production';
import { SandboxChainAdapter } from './sandbox';
import type { ChainAdapter } from './types';

export * from './types';

const sandbox = new SandboxChainAdapter();
let production: ViemChainAdapter | undefined;

/**
 * The adapter for an environment. Production is built on first use and throws
 * CHAIN_NOT_CONFIGURED when CHAIN_RPC_URLS is not set: production never pretends.
 */
export function chainAdapterFor(environment: Environment | 'sandbox' | 'production'): ChainAdapter {
  if (environment === 'production') return (production ??= new ViemChainAdapter());
  return sandbox;
}

export { SandboxChainAdapter } from './sandbox';
export { ViemChainAdapter, ChainNotConfigured } from './production';
