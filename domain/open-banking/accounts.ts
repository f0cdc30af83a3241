/**
 * Account information for third parties (Berlin Group NextGenPSD2 AIS): the account list, account
 * details, balances and the transaction report, in the standard's shapes and field names, built
 * from the platform's accounts and ledger (domain/accounts getAccount/assetBalances, domain/ledger
 * listTransactions: no SQL of their tables here). Each read passes the consent's checks
 * (withAccess, domain/open-banking/access.ts) after its own parameters are checked, so a malformed
 * request is refused before it counts against the consent's reads a day.
 */
import { assetBalances, getAccount, type Account, type AssetBalance } from '../accounts';
import { listAssets, type Asset } from '../assets';
import { getEntry } from '../ledger/entries';
import { entryOrigins, listTransactions, type EntryOrigin, type Transaction, type TransactionQuery, type TransactionStatus, type TransactionType } from '../ledger/transactions';
import { DomainError } from '../platform/errors';
import { utcToday, withAccess, type AisGrant, type ConsentAccount } from './access';
import { bankTransactionCode } from './bank-transaction-codes';
import type { Tpp } from './tpps';

export interface AisCall {
  /** The Consent-ID header. */
  consentId: string | undefined;
  psuPresent: boolean;
  /** Where the Berlin Group routes are mounted (BG_PREFIX, /api/v1/open-banking/psd2/v1), for _links. */
  base: string;
}

export interface Amount {
  currency: string;
  amount: string;
}

export interface Balance {
  balanceType: 'closingBooked' | 'interimAvailable';
  balanceAmount: Amount;
  referenceDate: string;
}

type Href = { href: string };

export interface AccountDetails {
  resourceId: string;
  iban: string;
  /** Only for an account holding exactly one ISO 4217 currency (a multi-currency account omits it). */
  currency?: string;
  name: string;
  product: string;
  cashAccountType: 'CACC';
  status: 'enabled' | 'blocked' | 'deleted';
  usage: 'PRIV' | 'ORGA';
  balances?: Balance[];
  _links: { balances?: Href; transactions?: Href };
}

/**
 * One line of a transaction report. creditorName/debtorName are left out: the ledger's
 * transactions do not carry the counterparty's name.
 */
export interface TransactionDetails {
  transactionId: string;
  bookingDate?: string;
  valueDate?: string;
  transactionAmount: Amount;
  remittanceInformationUnstructured?: string;
  bankTransactionCode: string;
  proprietaryBankTransactionCode: string;
}

/**
 * Whether an asset is a currency PSD2 access shows: an ISO 4217 currency (fiat, a three-letter
 * code) whose amounts fit the standard's amount format (at most 3 decimals). PSD2 covers payment
 * accounts in currencies: crypto assets (USDC, BTC …), commodities (XAU, 4 decimals here) and
 * baskets stay out of balances, transaction reports and the account's currency
 * (docs/open-banking.md, "Currencies").
 */
export function isPsd2Currency(a: Pick<Asset, 'code' | 'type' | 'precision'>): boolean {
  return a.type === 'fiat' && /^[A-Z]{3}$/.test(a.code) && a.precision <= 3;
}

/** The codes of the assets PSD2 access shows (the asset catalog is cached per process). */
async function psd2Currencies(): Promise<Set<string>> {
  return new Set((await listAssets()).filter(isPsd2Currency).map((a) => a.code));
}

/** The account's positions in ISO 4217 currencies only. */
async function currencyBalances(accountId: string): Promise<AssetBalance[]> {
  const [rows, currencies] = await Promise.all([assetBalances(accountId), psd2Currencies()]);
  return rows.filter((b) => currencies.has(b.asset_code));
}

const STATUS: Record<Account['status'], AccountDetails['status']> = { active: 'enabled', frozen: 'blocked', closed: 'deleted' };

const accountPath = (base: string, id: string) => `${base}/accounts/${encodeURIComponent(id)}`;

function formatError(message: string, parameter: string): DomainError {
  return new DomainError('FORMAT_ERROR', message, `/query/${parameter}`);
}

/** The consented account as the platform holds it (checkAccess saw it is the customer's). */
async function accountOf(grant: AisGrant, ca: ConsentAccount): Promise<Account> {
  const account = await getAccount(grant.consent.userId, grant.consent.environment, ca.accountId);
  if (!account) throw new DomainError('RESOURCE_UNKNOWN', 'The account is not addressed by this consent');
  return account;
}

/** closingBooked (posted) and interimAvailable (posted less reserved) per asset held. */
function balancesOf(b: AssetBalance[], today: string): Balance[] {
  return b.flatMap((x) => [
    { balanceType: 'closingBooked' as const, balanceAmount: { currency: x.asset_code, amount: x.total_balance }, referenceDate: today },
    { balanceType: 'interimAvailable' as const, balanceAmount: { currency: x.asset_code, amount: x.available_balance }, referenceDate: today },
  ]);
}

function detailsOf(account: Account, ca: ConsentAccount, b: AssetBalance[], opts: { withBalance: boolean; base: string }): AccountDetails {
  const path = accountPath(opts.base, account.id);
  const links: AccountDetails['_links'] = {};
  if (ca.balances) links.balances = { href: `${path}/balances` };
  if (ca.transactions) links.transactions = { href: `${path}/transactions` };
  return {
    resourceId: account.id,
    iban: ca.iban,
    ...(b.length === 1 ? { currency: b[0].asset_code } : {}),
    name: account.name.slice(0, 70),
    product: account.type,
    cashAccountType: 'CACC',
    status: STATUS[account.status],
    usage: account.type === 'business' ? 'ORGA' : 'PRIV',
    ...(opts.withBalance && ca.balances ? { balances: balancesOf(b, utcToday()) } : {}),
    _links: links,
  };
}

async function details(grant: AisGrant, ca: ConsentAccount, opts: { withBalance: boolean; base: string }): Promise<AccountDetails> {
  const account = await accountOf(grant, ca);
  return detailsOf(account, ca, await currencyBalances(account.id), opts);
}

/** GET /accounts: every account the consent gives account access to (accountList). */
export async function readAccountList(tpp: Tpp, call: AisCall & { withBalance: boolean }): Promise<{ accounts: AccountDetails[] }> {
  return withAccess(tpp, call.consentId, { endpoint: 'accounts', accountId: null, psuPresent: call.psuPresent }, async (grant) => ({
    accounts: await Promise.all(grant.accounts.map((ca) => details(grant, ca, call))),
  }));
}

/** GET /accounts/{account-id}: one account's details, with balances when asked and allowed. */
export async function readAccountDetails(tpp: Tpp, accountId: string, call: AisCall & { withBalance: boolean }): Promise<{ account: AccountDetails }> {
  return withAccess(tpp, call.consentId, { endpoint: 'account', accountId, psuPresent: call.psuPresent }, async (grant) => ({
    account: await details(grant, grant.accounts[0], call),
  }));
}

/** GET /accounts/{account-id}/balances (readAccountBalanceResponse-200). */
export async function readBalances(tpp: Tpp, accountId: string, call: AisCall): Promise<{ account: { iban: string }; balances: Balance[] }> {
  return withAccess(tpp, call.consentId, { endpoint: 'balances', accountId, psuPresent: call.psuPresent }, async (grant) => {
    const ca = grant.accounts[0];
    return { account: { iban: ca.iban }, balances: balancesOf(await currencyBalances(ca.accountId), utcToday()) };
  });
}

// Transaction reports.

export type BookingStatus = 'booked' | 'pending' | 'both';
const BOOKING_STATUSES: readonly BookingStatus[] = ['booked', 'pending', 'both'];
/** Most lines in one report page; the default page size. */
export const MAX_ITEMS_PER_PAGE = 500;
/** Without dateFrom, the report starts this many days before today. */
export const DEFAULT_REPORT_DAYS = 90;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface RawReportQuery {
  bookingStatus?: string;
  dateFrom?: string;
  dateTo?: string;
  pageIndex?: number;
  itemsPerPage?: number;
}

export interface ReportQuery {
  bookingStatus: BookingStatus;
  dateFrom: string;
  dateTo: string;
  /** 0 for the first page. */
  pageIndex: number;
  itemsPerPage: number;
}

function isDate(s: string): boolean {
  return DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;
}

/** The report's parameters, or 400 FORMAT_ERROR naming the parameter. */
export function parseReportQuery(raw: RawReportQuery, now = new Date()): ReportQuery {
  const bookingStatus = raw.bookingStatus;
  if (bookingStatus === undefined || bookingStatus === '') throw formatError('bookingStatus is required: booked, pending or both', 'bookingStatus');
  if (!BOOKING_STATUSES.includes(bookingStatus as BookingStatus)) {
    throw formatError(`bookingStatus must be booked, pending or both (information and all are not supported), not ${bookingStatus.slice(0, 40)}`, 'bookingStatus');
  }
  const today = utcToday(now);
  for (const name of ['dateFrom', 'dateTo'] as const) {
    const v = raw[name];
    if (v !== undefined && !isDate(v)) throw formatError(`${name} must be an ISO date (YYYY-MM-DD)`, name);
  }
  const dateTo = raw.dateTo ?? today;
  const dateFrom = raw.dateFrom ?? utcToday(new Date(Date.parse(`${dateTo}T00:00:00Z`) - DEFAULT_REPORT_DAYS * 86_400_000));
  if (dateFrom > dateTo) throw formatError('dateFrom must not be after dateTo', 'dateFrom');
  const pageIndex = raw.pageIndex ?? 0;
  if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex > 1_000_000) throw formatError('pageIndex must be an integer from 0 (the first page)', 'pageIndex');
  const itemsPerPage = raw.itemsPerPage ?? MAX_ITEMS_PER_PAGE;
  if (!Number.isInteger(itemsPerPage) || itemsPerPage < 1 || itemsPerPage > MAX_ITEMS_PER_PAGE) {
    throw formatError(`itemsPerPage must be an integer from 1 to ${MAX_ITEMS_PER_PAGE}`, 'itemsPerPage');
  }
  return { bookingStatus: bookingStatus as BookingStatus, dateFrom, dateTo, pageIndex, itemsPerPage };
}

const MONEY_OUT: ReadonlySet<TransactionType> = new Set(['withdrawal', 'transfer_out', 'fee']);

/**
 * Money in or out of the customer's account. The type says it, but for a reversal, whose side
 * the ledger line records (customer ledger accounts are credit-normal: a credit is money in).
 */
async function moneyIn(t: Transaction): Promise<boolean> {
  if (t.type !== 'reversal') return !MONEY_OUT.has(t.type);
  const entry = await getEntry(t.entryId);
  return entry?.lines.find((l) => l.id === t.id)?.direction === 'credit';
}

async function transactionDetails(t: Transaction, origin: EntryOrigin | undefined): Promise<TransactionDetails> {
  const incoming = await moneyIn(t);
  const booked = t.status === 'completed' && t.completedAt !== null;
  const remittance = t.description ?? t.reference;
  return {
    transactionId: t.id,
    ...(booked ? { bookingDate: utcToday(t.completedAt!), valueDate: utcToday(t.completedAt!) } : {}),
    transactionAmount: { currency: t.assetCode, amount: incoming ? t.amount : `-${t.amount}` },
    ...(remittance ? { remittanceInformationUnstructured: remittance.slice(0, 140) } : {}),
    bankTransactionCode: bankTransactionCode({ type: t.type, incoming }, origin),
    proprietaryBankTransactionCode: t.type,
  };
}

/** The ledger's transaction list pages by at most LEDGER_PAGE lines; a report page spans several. */
const LEDGER_PAGE = 100;

/** Lines [offset, offset + limit) of the account's transactions with one status, newest first, and how many there are. */
async function lines(q: Omit<TransactionQuery, 'page' | 'perPage'>, offset: number, limit: number): Promise<{ items: Transaction[]; total: number }> {
  const firstPage = Math.floor(offset / LEDGER_PAGE) + 1;
  const lastPage = Math.floor((offset + limit - 1) / LEDGER_PAGE) + 1;
  const first = await listTransactions({ ...q, page: firstPage, perPage: LEDGER_PAGE });
  const available = Math.min(lastPage, Math.ceil(first.total / LEDGER_PAGE));
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, available - firstPage) }, (_, i) => listTransactions({ ...q, page: firstPage + 1 + i, perPage: LEDGER_PAGE })),
  );
  const start = offset - (firstPage - 1) * LEDGER_PAGE;
  return { items: [first, ...rest].flatMap((r) => r.items).slice(start, start + limit), total: first.total };
}

export interface TransactionReport {
  account: { iban: string };
  transactions: {
    booked?: TransactionDetails[];
    pending?: TransactionDetails[];
    _links: { account: Href; first?: Href; previous?: Href; next?: Href; last?: Href };
  };
}

/**
 * GET /accounts/{account-id}/transactions (transactionsResponse-200_json): booked and/or pending
 * lines entered from dateFrom to dateTo (inclusive, UTC), newest first, itemsPerPage (at most 500)
 * a page; with "both" each list is paged alike and the links follow the longer one.
 */
export async function readTransactions(tpp: Tpp, accountId: string, raw: RawReportQuery, call: AisCall): Promise<TransactionReport> {
  const q = parseReportQuery(raw);
  return withAccess(tpp, call.consentId, { endpoint: 'transactions', accountId, psuPresent: call.psuPresent }, (grant) => report(grant, q, call.base));
}

async function report(grant: AisGrant, q: ReportQuery, base: string): Promise<TransactionReport> {
  const ca = grant.accounts[0];
  // The ledger's list is filtered by the consent's customer and environment: nothing of anyone
  // else's; and to ISO 4217 currencies, as the balances are.
  const filter = {
    accountId: ca.accountId,
    userId: grant.consent.userId,
    environment: grant.consent.environment,
    assetCodes: [...(await psd2Currencies())],
    startDate: new Date(`${q.dateFrom}T00:00:00.000Z`),
    endDate: new Date(`${q.dateTo}T23:59:59.999Z`),
  };
  const statuses: Array<['booked' | 'pending', TransactionStatus]> = [];
  if (q.bookingStatus !== 'pending') statuses.push(['booked', 'completed']);
  if (q.bookingStatus !== 'booked') statuses.push(['pending', 'pending']);
  const offset = q.pageIndex * q.itemsPerPage;
  const lists = await Promise.all(statuses.map(([, status]) => lines({ ...filter, status }, offset, q.itemsPerPage)));

  const body: TransactionReport['transactions'] = { _links: { account: { href: accountPath(base, ca.accountId) } } };
  const origins = await entryOrigins(lists.flatMap((l) => l.items.map((t) => t.entryId)));
  for (const [i, [name]] of statuses.entries()) body[name] = await Promise.all(lists[i].items.map((t) => transactionDetails(t, origins.get(t.entryId))));
  const total = Math.max(...lists.map((l) => l.total));
  const lastIndex = Math.max(0, Math.ceil(total / q.itemsPerPage) - 1);
  const page = (pageIndex: number): Href => {
    const params = new URLSearchParams({ bookingStatus: q.bookingStatus, dateFrom: q.dateFrom, dateTo: q.dateTo, itemsPerPage: String(q.itemsPerPage), pageIndex: String(pageIndex) });
    return { href: `${accountPath(base, ca.accountId)}/transactions?${params}` };
  };
  body._links.first = page(0);
  if (q.pageIndex > 0) body._links.previous = page(Math.min(q.pageIndex - 1, lastIndex));
  if (q.pageIndex < lastIndex) body._links.next = page(q.pageIndex + 1);
  body._links.last = page(lastIndex);
  return { account: { iban: ca.iban }, transactions: body };
}
