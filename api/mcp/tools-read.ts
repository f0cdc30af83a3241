/**
 * The MCP read tools: balances, transactions and SMS rates, through the same domain functions as
 * their REST twins (GET /api/v2/accounts/{uuid}/balances, GET /api/v2/transactions,
 * GET /api/v2/accounts/{uuid}/transactions, the SMS rate lookup), so ownership, environment and
 * partner/tenant isolation are the REST routes' own: another user's account is NOT_FOUND.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { getBalances, listAccounts, toPublicAccount, type Account } from '../../domain/accounts';
import { getOwnAccount, listOwnAccountTransactions } from '../../domain/accounts/own';
import { authorize } from '../../domain/auth/gate';
import type { Principal } from '../../domain/auth/principal';
import { listTransactions } from '../../domain/ledger/transactions';
import { ACCOUNT_BALANCES_RESOURCE, refuseIfMonetized } from '../../domain/x402/endpoints';
import { getSmsRate } from '../../domain/sms/rates';
import { guarded, toolResult, type McpToolContext } from './results';

/** At most this many accounts in one get_balances answer (the REST list's page maximum). */
export const MAX_BALANCE_ACCOUNTS = 100;

/** What the REST twins need (the one gate, domain/auth/gate.ts): read, and the Accounts module for a partner key or tenant. */
const READ_ACCOUNTS = { permission: 'read', tags: ['Accounts'] } as const;

const accountId = z
  .string()
  .min(1)
  .max(64)
  .describe("An account's uuid (acct_…) of the caller, in the credential's environment");

async function accountWithBalances(a: Account) {
  const { uuid, name, type, status } = toPublicAccount(a);
  const b = await getBalances(a.id);
  return { uuid, name, type, status, balances: b.balances, summary: b.summary };
}

export function registerReadTools(server: McpServer, p: Principal, ctx: McpToolContext): void {
  server.registerTool(
    'get_balances',
    {
      title: 'Account balances',
      description:
        "Balances per asset of the caller's accounts in the credential's environment (sandbox or production): available (posted less reserved), " +
        'reserved (pending outflows) and total (posted), as decimal strings, with the USD value of the totals. With account_id, that account only; ' +
        `without, every account (at most ${MAX_BALANCE_ACCOUNTS}; total_accounts says how many there are).`,
      inputSchema: { account_id: accountId.optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ account_id }) =>
      guarded(ctx, async () => {
        await authorize(p, READ_ACCOUNTS);
        // Paid on REST when monetized: a tool cannot take the payment, so it does not serve it free.
        await refuseIfMonetized(p.environment, ACCOUNT_BALANCES_RESOURCE);
        if (account_id !== undefined) {
          const account = await getOwnAccount(p, account_id);
          return toolResult({ environment: p.environment, total_accounts: 1, accounts: [await accountWithBalances(account)] });
        }
        const { items, total } = await listAccounts(p.userId, p.environment, { page: 1, perPage: MAX_BALANCE_ACCOUNTS });
        const accounts = [];
        for (const a of items) accounts.push(await accountWithBalances(a));
        return toolResult({ environment: p.environment, total_accounts: total, accounts });
      }),
  );

  server.registerTool(
    'list_transactions',
    {
      title: 'Transactions',
      description:
        "The caller's transactions (every posting to their accounts) in the credential's environment, newest first, in the REST API's shape " +
        '(type deposit, withdrawal, transfer, fee or reversal; amount as a decimal string; status pending, completed or failed). With account_id, that account only.',
      inputSchema: {
        account_id: accountId.optional(),
        limit: z.number().int().min(1).max(100).optional().describe('How many, newest first (default 20, at most 100)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ account_id, limit }) =>
      guarded(ctx, async () => {
        await authorize(p, READ_ACCOUNTS);
        const page = { page: 1, perPage: limit ?? 20 };
        const { items, total } =
          account_id !== undefined
            ? await listOwnAccountTransactions(p, account_id, page)
            : await listTransactions({ userId: p.userId, environment: p.environment, ...page });
        return toolResult({ environment: p.environment, total, transactions: items.map(ctx.presentTransaction) });
      }),
  );

  server.registerTool(
    'get_sms_rate',
    {
      title: 'SMS rate',
      description:
        'The price of one SMS part to a country (ISO 3166-1 alpha-2, e.g. DE): rate_eur as published by the provider and rate_usdc in USDC atomic units ' +
        '(6 decimals: "48000" = 0.048 USDC), the amount send_sms asks per part.',
      inputSchema: { country: z.string().min(2).max(2).describe('ISO 3166-1 alpha-2 country code, e.g. DE or US') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ country }) => guarded(ctx, async () => toolResult({ ...(await getSmsRate(country)) })),
  );
}
