/**
 * DeFi over GraphQL (docs/defi.md): swap quotes and executions, swaps, flash loans, pools and the
 * DeFi portfolio; positions (liquidity, lending, staking) are ./defi-positions.ts. Each resolver
 * checks the input against the REST route's schema, makes the one domain call its REST route makes
 * (api/routes/defi/index.ts) and shows the REST presenter's answer in camelCase.
 */
import type { FastifyInstance } from 'fastify';
import { defiPools, findFlashLoan, findSwap } from '../../../domain/defi/operations';
import { defiPortfolio } from '../../../domain/defi/portfolio';
import {
  executeFromBody,
  flashLoanFromBody,
  quoteAndExecuteFromBody,
  quoteFromBody,
  quoteFromQuery,
  type ExecuteBody,
  type FlashLoanBody,
  type QuoteAndExecuteBody,
  type QuoteBody,
  type QuoteQuery,
} from '../../operations/defi/requests';
import { flashLoanFailed, presentDefiPortfolio, presentFlashLoan, presentPools, presentSubmitted, presentSwap, presentSwapQuote } from '../../operations/defi/presenters';
import { flashLoanSchema, poolsSchema, quoteAndExecuteSchema, swapExecuteSchema, swapQuoteQuerySchema, swapQuoteSchema, TAG } from '../../operations/defi/schemas';
import { as, mutationRequestKey, type GqlContext } from '../context';
import { defiTypeDefs } from './defi-schema';
import { camelize, restInput } from '../rest';
import type { GraphQLArea } from './types';

type Input = { input: Record<string, unknown> };

export function defiArea(_app: FastifyInstance): GraphQLArea {
  return {
    typeDefs: defiTypeDefs,
    resolvers: {
      Query: {
        defiSwapQuote: async (_: unknown, args: { from: string; to: string; amount: string; chain?: string; slippageBps?: number; dexSources?: string[] | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          // REST takes the DEX sources comma-separated in the query string; GraphQL takes a list.
          const qs = restInput<QuoteQuery>(swapQuoteQuerySchema.querystring, { ...args, dexSources: args.dexSources?.join(',') }, 'querystring');
          const q = await quoteFromQuery(c, qs, args.dexSources ?? null);
          return camelize(presentSwapQuote(q));
        },
        defiSwap: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentSwap(await findSwap(args.id, await as(ctx, { tag: TAG })))),
        flashLoan: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentFlashLoan(await findFlashLoan(args.id, await as(ctx, { tag: TAG })))),
        defiPortfolio: async (_: unknown, __: unknown, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return camelize(presentDefiPortfolio(await defiPortfolio(c.userId, c.environment)));
        },
        defiPools: async (_: unknown, args: { chain?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const qs = restInput<{ chain?: string }>(poolsSchema.querystring, args, 'querystring');
          return camelize(presentPools(await defiPools(c.environment, qs.chain)));
        },
      },
      Mutation: {
        createDefiSwapQuote: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const q = await quoteFromBody(c, restInput<QuoteBody>(swapQuoteSchema.body, input));
          return camelize(presentSwapQuote(q));
        },
        executeDefiSwap: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const s = await executeFromBody(c, restInput<ExecuteBody>(swapExecuteSchema.body, input), mutationRequestKey(ctx));
          return camelize(presentSubmitted(s));
        },
        quoteAndExecuteDefiSwap: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const { quote, swap } = await quoteAndExecuteFromBody(c, restInput<QuoteAndExecuteBody>(quoteAndExecuteSchema.body, input), mutationRequestKey(ctx));
          return camelize({ ...presentSubmitted(swap), quote: presentSwapQuote(quote) });
        },
        flashLoan: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const r = await flashLoanFromBody(c, restInput<FlashLoanBody>(flashLoanSchema.body, input));
          if (!r.ok) throw flashLoanFailed(r);
          return camelize(presentFlashLoan(r.loan));
        },
      },
    },
  };
}
