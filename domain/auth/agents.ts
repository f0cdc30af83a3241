import { DomainError } from '../platform/errors';

/**
 * An agent key (an API key tagged `agent`: software spending on its owner's behalf) spends within
 * the budget its owner gave it and administers nothing that could widen it: it cannot change any
 * spending limit (its own, another agent's, a wallet's), create an API key (an unflagged one pays
 * with no agent budget, a flagged one starts a fresh budget) or rotate one (a new key id starts a
 * new day). Its owner does these with a login session or a key of their own that is not an agent.
 */
export function assertNotAgent(caller: { agent?: boolean }, what: string): void {
  if (caller.agent) {
    throw new DomainError('AGENT_NOT_PERMITTED', `An agent key cannot ${what}; the account owner does this with a login session or a key that is not an agent`);
  }
}
