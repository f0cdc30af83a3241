/**
 * The sandbox facilitator's HTTP face (/api/v2/x402/facilitator/verify, /settle, /supported), speaking
 * x402 v2's facilitator protocol so a resource server elsewhere can take sandbox payments to this
 * platform. It settles through the same payment core, so it only ever moves a registered wallet's
 * USDC to the platform's address, as the payer authorized; a settled authorization cannot settle again.
 */
import { getPool } from '../db/pool';
import { DomainError } from '../platform/errors';
import { atomicToUsdc } from './amounts';
import { parseSignedAuthorization, verifyAuthorization, type PaymentTerms, type SignedAuthorization } from './authorization';
import { paymentAsset, paymentNetwork } from './networks';
import { settlePayment } from './payments';
import { payToAddress } from './requirements';
import Decimal from 'decimal.js';
import { getAddress } from 'viem';
import { findChainLedgerAccount } from '../chains/books';

interface FacilitatorRequest {
  x402Version?: unknown;
  paymentPayload?: { payload?: unknown; resource?: { url?: unknown } };
  paymentRequirements?: { scheme?: unknown; network?: unknown; asset?: unknown; amount?: unknown; payTo?: unknown };
}

function read(body: unknown): { signed: SignedAuthorization; terms: PaymentTerms; resource: string } {
  const b = (body ?? {}) as FacilitatorRequest;
  const r = b.paymentRequirements;
  if (!r || typeof r !== 'object' || r.scheme !== 'exact') throw new DomainError('PAYMENT_MALFORMED', 'paymentRequirements with scheme "exact" are required');
  const network = paymentNetwork(r.network, 'sandbox');
  const asset = paymentAsset(network, r.asset);
  if (typeof r.amount !== 'string' || !/^[1-9][0-9]{0,30}$/.test(r.amount)) throw new DomainError('PAYMENT_MALFORMED', 'paymentRequirements.amount must be atomic units');
  const payTo = payToAddress('sandbox');
  if (typeof r.payTo !== 'string' || r.payTo.toLowerCase() !== payTo.toLowerCase()) throw new DomainError('PAYMENT_WRONG_PAYEE', `The sandbox facilitator settles payments to ${payTo} only`);
  const url = b.paymentPayload?.resource?.url;
  return { signed: parseSignedAuthorization(b.paymentPayload?.payload), terms: { network, asset, amount: r.amount, payTo }, resource: typeof url === 'string' ? url.slice(0, 500) : 'facilitator' };
}

/** POST /verify: whether the payment would settle now (signature, terms, wallet, funds, nonce unused). */
export async function facilitatorVerify(body: unknown): Promise<{ isValid: boolean; invalidReason?: string; invalidMessage?: string; payer?: string }> {
  try {
    const { signed, terms } = read(body);
    const payer = await verifyAuthorization(signed, terms);
    const { rows } = await getPool().query<{ account_id: string }>('SELECT account_id FROM x402_wallets WHERE environment = $1 AND address = $2', ['sandbox', payer.toLowerCase()]);
    if (!rows[0]) return { isValid: false, invalidReason: 'PAYMENT_PAYER_UNKNOWN', invalidMessage: `Wallet ${payer} is not registered`, payer };
    const used = await getPool().query(`SELECT 1 FROM x402_payments WHERE environment = 'sandbox' AND network = $1 AND asset = $2 AND payer = $3 AND nonce = $4`, [
      terms.network.network,
      terms.asset.address.toLowerCase(),
      payer.toLowerCase(),
      signed.authorization.nonce.toLowerCase(),
    ]);
    if (used.rows[0]) return { isValid: false, invalidReason: 'PAYMENT_NONCE_USED', invalidMessage: 'The authorization nonce is used', payer };
    const book = await findChainLedgerAccount(rows[0].account_id, 'USDC', terms.network.bookChain);
    const balance = book
      ? (await getPool().query<{ a: string }>(`SELECT ledger_balance_json(la)->>'available_balance' AS a FROM ledger_accounts la WHERE id = $1`, [book])).rows[0].a
      : '0';
    if (new Decimal(balance).lt(atomicToUsdc(terms.amount))) {
      return { isValid: false, invalidReason: 'PAYMENT_INSUFFICIENT_FUNDS', invalidMessage: `Wallet ${payer} holds ${balance} USDC on ${terms.network.name}`, payer };
    }
    return { isValid: true, payer };
  } catch (err) {
    if (err instanceof DomainError) return { isValid: false, invalidReason: err.code, invalidMessage: err.message };
    throw err;
  }
}

/** POST /settle: settles through the payment core; the response is x402's SettleResponse. */
export async function facilitatorSettle(body: unknown) {
  let network = '';
  try {
    const { signed, terms, resource } = read(body);
    network = terms.network.network;
    const p = await settlePayment(signed, terms, { environment: 'sandbox', purpose: 'facilitator', resource });
    return { success: true, payer: getAddress(p.payer), transaction: p.transactionHash ?? '', network: p.network, amount: p.amount };
  } catch (err) {
    if (err instanceof DomainError) return { success: false, errorReason: err.code, errorMessage: err.message, transaction: '', network };
    throw err;
  }
}
