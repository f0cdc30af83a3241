import type { Environment } from '../../platform/environment';
import type { RailName } from '../calendar';
import { GatewayRailAdapter } from './production';
import { SandboxAchAdapter, SandboxIsoRailAdapter } from './sandbox';
import type { RailAdapter } from './types';

export * from './types';
export { magic, RETURN_REASONS, SandboxAchAdapter, SandboxIsoRailAdapter } from './sandbox';
export { GatewayRailAdapter } from './production';

const sandboxIso = new SandboxIsoRailAdapter();
const sandboxAch = new SandboxAchAdapter();

/** The adapter for a rail in an environment: sandbox keys get the sandbox rails. */
export function railAdapter(environment: Environment, rail: RailName | 'ach'): RailAdapter {
  if (environment === 'production') return new GatewayRailAdapter();
  return rail.startsWith('ach') ? sandboxAch : sandboxIso;
}
