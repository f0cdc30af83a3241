import type { Environment } from '../../platform/environment';
import type { RailName } from '../calendar';
import { GatewayRailAdapter, UnconfiguredRailAdapter } from './production';
import { SandboxAchAdapter, SandboxIsoRailAdapter } from './sandbox';
import type { RailAdapter } from './types';

export * from './types';
export { magic, RETURN_REASONS, SandboxAchAdapter, SandboxIsoRailAdapter } from './sandbox';
export { GatewayRailAdapter, UnconfiguredRailAdapter } from './production';

const sandboxIso = new SandboxIsoRailAdapter();
const sandboxAch = new SandboxAchAdapter();

/**
 * The adapter for a rail in an environment: sandbox keys get the sandbox rails; production the
 * rail gateway when RAILS_GATEWAY_URL and RAILS_GATEWAY_TOKEN are set, otherwise an adapter that
 * refuses everything with RAIL_NOT_CONFIGURED. Read per call, so a configuration change applies
 * without a restart of the worker's activity code.
 */
export function railAdapter(environment: Environment, rail: RailName | 'ach'): RailAdapter {
  if (environment === 'production') return GatewayRailAdapter.configured() ? new GatewayRailAdapter() : new UnconfiguredRailAdapter();
  return rail.startsWith('ach') ? sandboxAch : sandboxIso;
}
