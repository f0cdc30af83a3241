/**
 * The basket buy workflow's steps (workflows/basket-buy.ts), each a domain call
 * (domain/baskets/buy-settle.ts) that is idempotent per workflow id and step. Refusals become
 * non-retryable failures carrying their code.
 */
import { acquireBuy, failBuy, reserveBuy, settleBuy } from '../../domain/baskets/buy-settle';
import { businessFailure } from '../failures';

export interface BuyStepInput {
  buyId: string;
  workflowId: string;
}

export function createBasketBuyActivities() {
  return {
    async reserveBasketBuy({ buyId, workflowId }: BuyStepInput): Promise<void> {
      await reserveBuy(buyId, workflowId).catch(businessFailure);
    },
    async acquireBasketComponents({ buyId, nowMs }: BuyStepInput & { nowMs: number }): Promise<{ executionPrice: string }> {
      const b = await acquireBuy(buyId, nowMs).catch(businessFailure);
      return { executionPrice: b.executionPrice ?? '' };
    },
    async settleBasketBuy({ buyId, workflowId }: BuyStepInput): Promise<void> {
      await settleBuy(buyId, workflowId).catch(businessFailure);
    },
    async compensateBasketBuy({ buyId, workflowId, code, reason }: BuyStepInput & { code: string; reason: string }): Promise<void> {
      await failBuy(buyId, workflowId, { code, reason });
    },
  };
}

export type BasketBuyActivities = ReturnType<typeof createBasketBuyActivities>;
