/**
 * What a TPP may initiate: the payment products (Berlin Group names) and the rail each one goes
 * out on, and reading a payment initiation body, Berlin Group JSON or (SEPA products) an ISO 20022
 * pain.001 document, into one instruction. Refusals use Berlin Group codes: PRODUCT_UNKNOWN (404),
 * FORMAT_ERROR (400: syntax, IBAN, amount spelling or precision, a currency the product does not
 * carry, an invalid pain.001), PAYMENT_FAILED (400: the product's rail cannot carry it, e.g. a
 * creditor outside SEPA); AMOUNT_TOO_LARGE (422) as everywhere on the platform.
 */
import { getAsset } from '../assets';
import { parseRequestAmount } from '../money/amount';
import { DomainError } from '../platform/errors';
import { RAILS, type RailName } from '../rails/calendar';
import { checkExplicitRail, ibanValid } from '../rails/routing';
import { Iso20022Error } from '../../iso20022/errors';
import { parseMessage, validateMessage } from '../../iso20022/index';
import { PAYMENT_PRODUCTS, type PaymentCreditor, type PaymentInstruction, type PaymentProduct } from './payment-records';

export interface ProductDefinition {
  rail: RailName;
  currencies: readonly string[];
  /** Whether a pain.001 document is accepted besides JSON. */
  xml: boolean;
}

export const PRODUCTS: Readonly<Record<PaymentProduct, ProductDefinition>> = {
  'sepa-credit-transfers': { rail: 'sepa_ct', currencies: ['EUR'], xml: true },
  'instant-sepa-credit-transfers': { rail: 'sepa_instant', currencies: ['EUR'], xml: true },
  'cross-border-credit-transfers': { rail: 'swift', currencies: RAILS.swift.currencies, xml: false },
};

/** The product named in the path (or body), else 404 PRODUCT_UNKNOWN. */
export function productOf(name: string): PaymentProduct {
  if (!(PAYMENT_PRODUCTS as readonly string[]).includes(name)) {
    throw new DomainError('PRODUCT_UNKNOWN', `Unknown payment product "${name}"; offered: ${PAYMENT_PRODUCTS.join(', ')}`, '/paymentProduct');
  }
  return name as PaymentProduct;
}

/** Berlin Group `address`. */
export interface BgAddress {
  streetName?: string;
  buildingNumber?: string;
  townName?: string;
  postCode?: string;
  country: string;
}

/** Berlin Group `paymentInitiation_json`, the members this platform takes. */
export interface BgPaymentInitiation {
  endToEndIdentification?: string;
  instructedAmount: { currency: string; amount: string };
  debtorAccount: { iban: string; currency?: string };
  creditorAccount: { iban: string; currency?: string };
  creditorAgent?: string;
  creditorName: string;
  creditorAddress?: BgAddress;
  remittanceInformationUnstructured?: string;
}

/** A payment initiation body: JSON already parsed, or the XML text of a pain.001. */
export type { PaymentInstruction };
export type PaymentBody = { kind: 'json'; body: BgPaymentInitiation } | { kind: 'xml'; xml: string };


const BIC = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;
const formatError = (message: string, pointer?: string) => new DomainError('FORMAT_ERROR', message, pointer);

/** Fields as read from either body, before any check; `at` names each field for refusals. */
interface RawInstruction {
  debtorIban: string | undefined;
  creditorIban: string | undefined;
  creditorName: string | undefined;
  creditorBic: string | undefined;
  creditorAddress: BgAddress | undefined;
  amount: string | undefined;
  currency: string | undefined;
  remittance: string | undefined;
  endToEndId: string | undefined;
  at: Record<'debtorIban' | 'creditorIban' | 'creditorName' | 'creditorBic' | 'amount' | 'currency', string>;
  /** JSON pointers (JSON bodies); XML refusals name the element in the message instead. */
  pointers: boolean;
}

/** Reads and checks the body for the product. */
export async function readPaymentBody(product: PaymentProduct, body: PaymentBody): Promise<PaymentInstruction> {
  const raw = body.kind === 'json' ? fromJson(body.body) : fromPain001(product, body.xml);
  return check(product, raw);
}

function fromJson(b: BgPaymentInitiation): RawInstruction {
  return {
    debtorIban: b.debtorAccount?.iban,
    creditorIban: b.creditorAccount?.iban,
    creditorName: b.creditorName,
    creditorBic: b.creditorAgent,
    creditorAddress: b.creditorAddress,
    amount: b.instructedAmount?.amount,
    currency: b.instructedAmount?.currency,
    remittance: b.remittanceInformationUnstructured,
    endToEndId: b.endToEndIdentification,
    at: {
      debtorIban: '/debtorAccount/iban',
      creditorIban: '/creditorAccount/iban',
      creditorName: '/creditorName',
      creditorBic: '/creditorAgent',
      amount: '/instructedAmount/amount',
      currency: '/instructedAmount/currency',
    },
    pointers: true,
  };
}

type Json = Record<string, any>;

/** The ISO module refuses unsafe or unsupported XML with its own coded errors: a format error here. */
function isoRefusal(err: unknown): string | null {
  return err instanceof Iso20022Error ? err.message : null;
}

function fromPain001(product: PaymentProduct, xml: string): RawInstruction {
  if (!PRODUCTS[product].xml) throw formatError(`${product} takes a JSON body; pain.001 documents are accepted for the SEPA products`);
  let parsed: Json;
  try {
    const v = validateMessage(xml);
    if (v.message_type !== 'pain.001') throw formatError(`Expected a pain.001 customer credit transfer initiation, got ${v.message_type}`);
    if (!v.valid) {
      const shown = v.errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`);
      throw new DomainError('FORMAT_ERROR', `The pain.001 document is invalid: ${shown.join('; ')}`, undefined, { errors: v.errors.slice(0, 20) });
    }
    parsed = parseMessage(xml) as Json;
  } catch (err) {
    const refused = isoRefusal(err);
    if (refused) throw formatError(refused);
    throw err;
  }
  const infos = (parsed.payment_infos ?? []) as Json[];
  const txs = infos.flatMap((i) => (i.transactions ?? []) as Json[]);
  if (infos.length !== 1 || txs.length !== 1) {
    throw formatError(`A payment initiation carries exactly one credit transfer; this pain.001 has ${txs.length} in ${infos.length} payment information blocks`);
  }
  const info = infos[0];
  const tx = txs[0];
  const addr = tx.creditor?.postal_address as Json | undefined;
  const unstructured = (tx.remittance_information?.unstructured ?? []) as string[];
  const e2e = tx.end_to_end_id as string | undefined;
  return {
    debtorIban: info.debtor?.account?.iban,
    creditorIban: tx.creditor?.account?.iban,
    creditorName: tx.creditor?.name,
    creditorBic: tx.creditor?.agent?.bic,
    creditorAddress: addr?.country
      ? { streetName: addr.street_name, buildingNumber: addr.building_number, townName: addr.town_name, postCode: addr.post_code, country: addr.country }
      : undefined,
    amount: tx.amount,
    currency: tx.currency,
    remittance: unstructured.length ? unstructured.join(' ') : undefined,
    endToEndId: e2e && e2e !== 'NOTPROVIDED' ? e2e : undefined,
    at: {
      debtorIban: 'PmtInf/DbtrAcct/Id/IBAN',
      creditorIban: 'CdtTrfTxInf/CdtrAcct/Id/IBAN',
      creditorName: 'CdtTrfTxInf/Cdtr/Nm',
      creditorBic: 'CdtTrfTxInf/CdtrAgt/FinInstnId/BIC(FI)',
      amount: 'CdtTrfTxInf/Amt/InstdAmt',
      currency: 'CdtTrfTxInf/Amt/InstdAmt/@Ccy',
    },
    pointers: false,
  };
}

async function check(product: PaymentProduct, r: RawInstruction): Promise<PaymentInstruction> {
  const def = PRODUCTS[product];
  const refuse = (field: keyof RawInstruction['at'], message: string, code = 'FORMAT_ERROR') =>
    new DomainError(code, r.pointers ? message : `${r.at[field]}: ${message}`, r.pointers ? r.at[field] : undefined);
  const iban = (field: 'debtorIban' | 'creditorIban', value: string | undefined) => {
    const s = (value ?? '').replace(/\s/g, '').toUpperCase();
    if (!s) throw refuse(field, 'an IBAN is required (other account references are not supported)');
    if (!ibanValid(s)) throw refuse(field, `${value} is not a valid IBAN`);
    return s;
  };
  const debtorIban = iban('debtorIban', r.debtorIban);
  const creditorIban = iban('creditorIban', r.creditorIban);
  const name = (r.creditorName ?? '').trim();
  if (!name) throw refuse('creditorName', 'the creditor name is required');
  const bic = r.creditorBic?.toUpperCase();
  if (bic && !BIC.test(bic)) throw refuse('creditorBic', `${r.creditorBic} is not a BIC`);

  const currency = (r.currency ?? '').toUpperCase();
  if (!def.currencies.includes(currency)) throw refuse('currency', `${product} carries ${def.currencies.join(', ')}, not ${r.currency ?? '(none)'}`);
  const asset = await getAsset(currency);
  if (!asset || asset.type !== 'fiat') throw refuse('currency', `${currency} is not a currency this platform pays out`);
  let amount: string;
  try {
    amount = parseRequestAmount(r.amount, asset, r.at.amount);
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'AMOUNT_TOO_LARGE') throw refuse('amount', err.message);
    throw err;
  }
  const creditor: PaymentCreditor = { iban: creditorIban, name, ...(bic ? { bic } : {}), ...(r.creditorAddress ? { address: r.creditorAddress } : {}) };
  try {
    checkExplicitRail(def.rail, amount, currency, { name, iban: creditorIban, ...(bic ? { bic } : {}) });
  } catch (err) {
    // The rail's reason (creditor outside its reach, currency, limit) is about the payment as a whole.
    if (err instanceof DomainError) throw new DomainError('PAYMENT_FAILED', `${product} cannot carry this payment: ${err.message}`);
    throw err;
  }
  if (r.remittance && r.remittance.length > 140) throw formatError('remittance information is limited to 140 characters', r.pointers ? '/remittanceInformationUnstructured' : undefined);
  if (r.endToEndId && r.endToEndId.length > 35) throw formatError('the end-to-end identification is limited to 35 characters', r.pointers ? '/endToEndIdentification' : undefined);
  return { debtorIban, creditor, amount, currency, remittance: r.remittance ?? null, endToEndId: r.endToEndId ?? null };
}
