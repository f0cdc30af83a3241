/** Wire shapes of payment initiation (Berlin Group names): request bodies, responses, presenters. */
import { PRODUCTS, type ObPayment } from '../../../domain/open-banking/payments';
import { STATUS_REASONS, TRANSACTION_STATUSES } from '../../../domain/open-banking/payment-records';
import { BG_PREFIX } from './schemas';

/** The single-payment service of the Berlin Group paths: /v1/{payment-service}/{payment-product} with payment-service "payments". */
export const PAYMENT_PREFIX = `${BG_PREFIX}/payments`;
export const XML_TYPES = ['application/xml', 'text/xml'];

const accountReference = {
  type: 'object',
  required: ['iban'],
  additionalProperties: false,
  description: 'An account by IBAN (the only account reference this platform takes).',
  properties: { iban: { type: 'string', maxLength: 34 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
};
const address = {
  type: 'object',
  required: ['country'],
  additionalProperties: false,
  properties: {
    streetName: { type: 'string', maxLength: 70 },
    buildingNumber: { type: 'string', maxLength: 16 },
    townName: { type: 'string', maxLength: 35 },
    postCode: { type: 'string', maxLength: 16 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
  },
};
const amount = {
  type: 'object',
  required: ['currency', 'amount'],
  additionalProperties: false,
  properties: {
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    amount: { type: 'string', maxLength: 40, description: 'Decimal string with at most the currency\'s decimals, e.g. "123.45" (400 FORMAT_ERROR otherwise)' },
  },
};

const initiationProperties = {
  endToEndIdentification: { type: 'string', maxLength: 35 },
  instructedAmount: amount,
  debtorAccount: accountReference,
  creditorAccount: accountReference,
  creditorAgent: { type: 'string', maxLength: 11, description: 'BICFI of the creditor\'s bank' },
  creditorName: { type: 'string', minLength: 1, maxLength: 70 },
  creditorAddress: address,
  remittanceInformationUnstructured: { type: 'string', maxLength: 140 },
};
const initiationRequired = ['instructedAmount', 'debtorAccount', 'creditorAccount', 'creditorName'];

/** Berlin Group paymentInitiation_json, the members this platform takes. */
export const paymentInitiationJson = { type: 'object', required: initiationRequired, additionalProperties: false, properties: initiationProperties };

/** The same with the product in the body (the platform's POST /api/v1/open-banking/payments, platform.ts). */
export const paymentInitiationWithProduct = {
  type: 'object',
  required: ['paymentProduct', ...initiationRequired],
  additionalProperties: false,
  properties: { paymentProduct: { type: 'string', maxLength: 64, description: `One of ${Object.keys(PRODUCTS).join(', ')}` }, ...initiationProperties },
};

const pain001 = { type: 'string', description: 'A pain.001 customer credit transfer initiation with exactly one transfer (SEPA products only); XSD-validated, no DTD.' };
export const paymentBodyByType = {
  content: {
    'application/json': { schema: paymentInitiationJson },
    'application/xml': { schema: pain001 },
    'text/xml': { schema: pain001 },
  },
};

const href = { type: 'object', properties: { href: { type: 'string' } } };
const statusSchema = { type: 'string', enum: [...TRANSACTION_STATUSES] };
const tppMessages = {
  type: 'array',
  description: 'Why a payment was rejected: text starts with the ISO 20022 status reason code (e.g. AM04 insufficient funds, AB05 SCA not completed in time).',
  items: { type: 'object', properties: { category: { type: 'string' }, code: { type: 'string' }, text: { type: 'string' } } },
};

export const initiationResponse = {
  type: 'object',
  required: ['transactionStatus', 'paymentId', '_links'],
  properties: {
    transactionStatus: statusSchema,
    paymentId: { type: 'string' },
    psuMessage: { type: 'string' },
    _links: { type: 'object', properties: { self: href, status: href, startAuthorisation: href } },
    tppMessages,
  },
};

export const paymentResponse = {
  type: 'object',
  properties: {
    endToEndIdentification: { type: 'string' },
    debtorAccount: { type: 'object', properties: { iban: { type: 'string' } } },
    instructedAmount: { type: 'object', properties: { currency: { type: 'string' }, amount: { type: 'string' } } },
    creditorAccount: { type: 'object', properties: { iban: { type: 'string' } } },
    creditorAgent: { type: 'string' },
    creditorName: { type: 'string' },
    creditorAddress: { type: 'object', additionalProperties: true },
    remittanceInformationUnstructured: { type: 'string' },
    transactionStatus: statusSchema,
    tppMessages,
  },
};

export const statusResponse = { type: 'object', properties: { transactionStatus: statusSchema, tppMessages } };

const product = { type: 'string', maxLength: 64, description: `Payment product: ${Object.keys(PRODUCTS).join(', ')} (404 PRODUCT_UNKNOWN otherwise)` };
const id = { type: 'string', maxLength: 64 };
export const productParams = { type: 'object', required: ['paymentProduct'], properties: { paymentProduct: product } };
export const paymentParams = { type: 'object', required: ['paymentProduct', 'paymentId'], properties: { paymentProduct: product, paymentId: id } };
export const authorisationParams = {
  type: 'object',
  required: ['paymentProduct', 'paymentId', 'authorisationId'],
  properties: { paymentProduct: product, paymentId: id, authorisationId: id },
};

// --- presenters

export const selfPath = (p: ObPayment) => `${PAYMENT_PREFIX}/${p.product}/${p.id}`;
export const authorisationPath = (p: ObPayment, authorisationId: string) => `${selfPath(p)}/authorisations/${authorisationId}`;

function messagesOf(p: ObPayment) {
  if (p.transactionStatus !== 'RJCT' || !p.statusReason) return {};
  const text = STATUS_REASONS[p.statusReason as keyof typeof STATUS_REASONS] ?? 'Rejected';
  return { tppMessages: [{ category: 'ERROR', code: 'PAYMENT_FAILED', text: `${p.statusReason}: ${text}` }] };
}

export function presentInitiation(p: ObPayment, base: string) {
  const self = `${base}${selfPath(p)}`;
  const awaitsSca = p.transactionStatus === 'RCVD';
  return {
    transactionStatus: p.transactionStatus,
    paymentId: p.id,
    ...(awaitsSca ? { psuMessage: 'Please authorise the payment with your bank (start an authorisation).' } : {}),
    _links: { self: { href: self }, status: { href: `${self}/status` }, ...(awaitsSca ? { startAuthorisation: { href: `${self}/authorisations` } } : {}) },
    ...messagesOf(p),
  };
}

export function presentPayment(p: ObPayment) {
  const c = p.creditor;
  return {
    ...(p.endToEndId ? { endToEndIdentification: p.endToEndId } : {}),
    debtorAccount: { iban: p.debtorIban },
    instructedAmount: { currency: p.currency, amount: p.amount },
    creditorAccount: { iban: c.iban },
    ...(c.bic ? { creditorAgent: c.bic } : {}),
    creditorName: c.name,
    ...(c.address ? { creditorAddress: c.address } : {}),
    ...(p.remittance ? { remittanceInformationUnstructured: p.remittance } : {}),
    transactionStatus: p.transactionStatus,
    ...messagesOf(p),
  };
}

export function presentStatus(p: ObPayment) {
  return { transactionStatus: p.transactionStatus, ...messagesOf(p) };
}
