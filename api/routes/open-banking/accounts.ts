/**
 * Berlin Group NextGenPSD2 account information (AIS) reads: GET /v1/accounts, /v1/accounts/{account-id},
 * /v1/accounts/{account-id}/balances and /v1/accounts/{account-id}/transactions, mounted under
 * BG_PREFIX. The TPP's certificate is the credential (tppCall('PSP_AI')), the Consent-ID header
 * names what it may read; domain/open-banking/accounts.ts checks the consent and builds the Berlin
 * Group bodies, answered as they are (the platform's enveloped GET /accounts is in platform.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { secondsUntilCountsReset } from '../../../domain/open-banking/access';
import { readAccountDetails, readAccountList, readBalances, readTransactions, type RawReportQuery } from '../../../domain/open-banking/accounts';
import {
  accountDetailsBody,
  accountListBody,
  accountParams,
  aisErrorResponses,
  aisHeaders,
  balancesBody,
  transactionsBody,
  transactionsQuery,
  withBalanceQuery,
} from '../../operations/open-banking/account-presenters';
import { psuPresent, tppCall, tppOf } from './context';
import { BG_PREFIX, TAGS as tags } from '../../operations/open-banking/schemas';

export const ACCOUNT_LIST_DOC =
  'The accounts the consent (Consent-ID) gives account access to, with _links to what it allows on each; balances too with ' +
  'withBalance=true where the consent allows them. Only ISO 4217 currency positions are shown (docs/open-banking.md). ' +
  'Without PSU-IP-Address the read counts against the consent\'s frequencyPerDay.';

/** The account list of a consent (getAccountList), with links under BG_PREFIX. */
export const accountList = (request: FastifyRequest<{ Querystring: { withBalance?: boolean } }>) =>
  readAccountList(tppOf(request), { consentId: consentIdOf(request), psuPresent: psuPresent(request), base: BG_PREFIX, withBalance: request.query.withBalance === true });

export function consentIdOf(request: FastifyRequest): string | undefined {
  const v = request.headers['consent-id'];
  return typeof v === 'string' ? v : undefined;
}

/** ACCESS_EXCEEDED lasts until the daily counts start again (midnight UTC): say when, as every 429 does. */
export async function retryAfterOn429(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(secondsUntilCountsReset()));
  return payload;
}

export function accountRoutes(app: FastifyInstance): void {
  const base = BG_PREFIX;
  const call = (request: FastifyRequest) => ({ consentId: consentIdOf(request), psuPresent: psuPresent(request), base });
  const common = { config: { public: true }, preValidation: tppCall('PSP_AI'), onSend: retryAfterOn429 };

  app.get<{ Querystring: { withBalance?: boolean } }>(
    '/accounts',
    {
      ...common,
      schema: {
        tags,
        summary: 'Read account list (Berlin Group AIS)',
        description: ACCOUNT_LIST_DOC,
        security: [],
        headers: aisHeaders,
        querystring: withBalanceQuery,
        response: { 200: accountListBody, ...aisErrorResponses(false) },
      },
    },
    accountList,
  );

  app.get<{ Params: { accountId: string }; Querystring: { withBalance?: boolean } }>(
    '/accounts/:accountId',
    {
      ...common,
      schema: {
        tags,
        summary: 'Read account details (Berlin Group AIS)',
        description: 'One account the consent gives account access to; balances too with withBalance=true where the consent allows them.',
        security: [],
        headers: aisHeaders,
        params: accountParams,
        querystring: withBalanceQuery,
        response: { 200: accountDetailsBody, ...aisErrorResponses(true) },
      },
    },
    async (request) => readAccountDetails(tppOf(request), request.params.accountId, { ...call(request), withBalance: request.query.withBalance === true }),
  );

  app.get<{ Params: { accountId: string } }>(
    '/accounts/:accountId/balances',
    {
      ...common,
      schema: {
        tags,
        summary: 'Read balances (Berlin Group AIS)',
        description: 'Per asset held: closingBooked (posted) and interimAvailable (posted less reserved for pending outflows), as of today (UTC).',
        security: [],
        headers: aisHeaders,
        params: accountParams,
        response: { 200: balancesBody, ...aisErrorResponses(true) },
      },
    },
    async (request) => readBalances(tppOf(request), request.params.accountId, call(request)),
  );

  app.get<{ Params: { accountId: string }; Querystring: RawReportQuery }>(
    '/accounts/:accountId/transactions',
    {
      ...common,
      schema: {
        tags,
        summary: 'Read transaction list of an account (Berlin Group AIS)',
        description:
          'bookingStatus (required): booked, pending or both. dateFrom and dateTo (inclusive, UTC; default the last 90 days) bound the ' +
          'date the transaction was entered. Newest first, itemsPerPage (at most and by default 500) a page from pageIndex 0; ' +
          '_links.next is there while more follow. A malformed parameter is 400 FORMAT_ERROR and is not counted.',
        security: [],
        headers: aisHeaders,
        params: accountParams,
        querystring: transactionsQuery,
        response: { 200: transactionsBody, ...aisErrorResponses(true) },
      },
    },
    async (request) => readTransactions(tppOf(request), request.params.accountId, request.query, call(request)),
  );
}
