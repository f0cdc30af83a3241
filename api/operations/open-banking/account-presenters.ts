/**
 * Wire shapes of the Berlin Group AIS reads (api/routes/open-banking/accounts.ts): the bodies the
 * domain builds (domain/open-banking/accounts.ts) are already in the standard's shape, so this file
 * holds their OpenAPI schemas, with the standard's names (accountList, accountDetails, balance,
 * transactions, _linksAccountReport). Every property is listed: the response serializer drops
 * what a schema does not name.
 */
import { MAX_ITEMS_PER_PAGE } from '../../../domain/open-banking/accounts';
import { errorEnvelopeSchema, errorResponsesFor } from '../../schemas';
import { headersSchema } from './schemas';

type Schema = Record<string, unknown>;

/** Request headers of every AIS read (none required by the schema: a missing one is the Berlin Group 400, not a 422). */
export const aisHeaders = headersSchema(['consent-id', 'psu-ip-address']);

export const accountParams: Schema = {
  type: 'object',
  required: ['accountId'],
  properties: { accountId: { type: 'string', description: 'resourceId of the account, as the account list gives it' } },
};

export const withBalanceQuery: Schema = {
  type: 'object',
  properties: { withBalance: { type: 'boolean', description: 'Include balances where the consent allows them' } },
};

/** Text parameters are checked by the domain, so that a malformed one is the Berlin Group 400 FORMAT_ERROR. */
export const transactionsQuery: Schema = {
  type: 'object',
  properties: {
    bookingStatus: { type: 'string', description: 'Required: booked, pending or both' },
    dateFrom: { type: 'string', description: 'First day (YYYY-MM-DD, inclusive, UTC); default 90 days before dateTo' },
    dateTo: { type: 'string', description: 'Last day (YYYY-MM-DD, inclusive, UTC); default today' },
    pageIndex: { type: 'integer', description: 'The page, from 0 (default 0)' },
    itemsPerPage: { type: 'integer', description: `Lines a page, 1 to ${MAX_ITEMS_PER_PAGE} (default ${MAX_ITEMS_PER_PAGE})` },
  },
};

const href: Schema = { type: 'object', properties: { href: { type: 'string' } } };
const amount: Schema = {
  type: 'object',
  required: ['currency', 'amount'],
  properties: {
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 (only ISO 4217 currency positions are shown)' },
    amount: { type: 'string', description: 'Decimal string at the asset precision; negative ("-") for money out' },
  },
};
const accountReference: Schema = { type: 'object', properties: { iban: { type: 'string' } } };

const balance: Schema = {
  type: 'object',
  required: ['balanceAmount', 'balanceType'],
  properties: {
    balanceType: { type: 'string', enum: ['closingBooked', 'interimAvailable'] },
    balanceAmount: amount,
    referenceDate: { type: 'string', format: 'date' },
  },
};
const balanceList: Schema = { type: 'array', items: balance };

const accountDetails: Schema = {
  type: 'object',
  required: ['resourceId', 'iban', 'name', 'product', 'cashAccountType', 'status', 'usage', '_links'],
  properties: {
    resourceId: { type: 'string' },
    iban: { type: 'string' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Only when the account holds exactly one ISO 4217 currency; a multi-currency account omits it' },
    name: { type: 'string', maxLength: 70 },
    product: { type: 'string', description: 'The account type: personal, business or savings' },
    cashAccountType: { type: 'string', enum: ['CACC'] },
    status: { type: 'string', enum: ['enabled', 'blocked', 'deleted'], description: 'blocked: frozen; deleted: closed' },
    usage: { type: 'string', enum: ['PRIV', 'ORGA'] },
    balances: balanceList,
    _links: {
      type: 'object',
      description: 'Only what the consent allows on the account',
      properties: { balances: href, transactions: href },
    },
  },
};

const transaction: Schema = {
  type: 'object',
  required: ['transactionId', 'transactionAmount', 'bankTransactionCode', 'proprietaryBankTransactionCode'],
  properties: {
    transactionId: { type: 'string' },
    bookingDate: { type: 'string', format: 'date' },
    valueDate: { type: 'string', format: 'date' },
    transactionAmount: amount,
    remittanceInformationUnstructured: { type: 'string', maxLength: 140 },
    bankTransactionCode: { type: 'string', description: 'ISO 20022 Domain-Family-SubFamily, e.g. PMNT-RCDT-ESCT' },
    proprietaryBankTransactionCode: { type: 'string', description: "The platform's type: deposit, withdrawal, transfer_in, transfer_out, fee, reversal" },
  },
};

const linksAccountReport: Schema = {
  type: 'object',
  required: ['account'],
  properties: { account: href, first: href, previous: href, next: href, last: href },
};

export const accountListBody: Schema = { type: 'object', required: ['accounts'], properties: { accounts: { type: 'array', items: accountDetails } } };
export const accountDetailsBody: Schema = { type: 'object', required: ['account'], properties: { account: accountDetails } };
export const balancesBody: Schema = { type: 'object', required: ['balances'], properties: { account: accountReference, balances: balanceList } };
export const transactionsBody: Schema = {
  type: 'object',
  properties: {
    account: accountReference,
    transactions: {
      type: 'object',
      required: ['_links'],
      properties: { booked: { type: 'array', items: transaction }, pending: { type: 'array', items: transaction }, _links: linksAccountReport },
    },
  },
};

/** The envelope, plus the Berlin Group tppMessages the open-banking conventions add to every refusal. */
const aisErrorEnvelope: Schema = {
  ...errorEnvelopeSchema,
  properties: {
    ...(errorEnvelopeSchema.properties as Schema),
    tppMessages: {
      type: 'array',
      items: {
        type: 'object',
        properties: { category: { type: 'string', enum: ['ERROR', 'WARNING'] }, code: { type: 'string' }, text: { type: 'string' }, path: { type: 'string' } },
      },
    },
  },
};

const AIS_ERRORS: Record<number, string> = {
  400: 'FORMAT_ERROR: X-Request-ID missing or not a UUID, Consent-ID missing, or a malformed query parameter (on the Berlin Group routes also a typed one not of its type: withBalance, pageIndex, itemsPerPage; the standard has no 422)',
  401:
    'CERTIFICATE_MISSING, CERTIFICATE_INVALID, CERTIFICATE_EXPIRED or CERTIFICATE_BLOCKED (the TPP certificate); CONSENT_INVALID (not authorised yet, ' +
    'rejected, revoked, terminated, or without the access this read needs); CONSENT_EXPIRED',
  403: 'ROLE_INVALID (the certificate lacks PSP_AI); CONSENT_UNKNOWN (not a consent of this TPP)',
  404: 'RESOURCE_UNKNOWN: the account is not addressed by the consent',
  429: "ACCESS_EXCEEDED: the consent's reads a day without the customer are used up (Retry-After: until midnight UTC); or rate limited",
};

/**
 * The refusals an AIS read can answer (with an account in the path, 404 too), each as the JSON
 * envelope; the platform's enveloped row (`platform`) keeps the platform's 422 for a typed parameter.
 */
export function aisErrorResponses(withAccount: boolean, platform = false): Record<string, Schema> {
  const general = errorResponsesFor(platform ? [405, 414, 422, 500, 503] : [405, 414, 500, 503]);
  const own = Object.fromEntries(
    Object.entries(AIS_ERRORS)
      .filter(([s]) => withAccount || s !== '404')
      .map(([s, description]) => [s, { description, content: { 'application/json': { schema: aisErrorEnvelope } } }]),
  );
  return { ...own, ...general };
}
