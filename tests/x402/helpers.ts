/**
 * Payers for x402 tests: viem accounts from fixed test keys, registered to an account with their
 * own signature, funded on a chain book, paying with @x402/evm's own client (the real x402 client
 * code) or, for tampering, signing EIP-712 typed data directly with viem.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { ensureChainLedgerAccount } from '../../domain/chains/books';
import { withTransaction } from '../../domain/db/pool';
import { postEntry, systemAccount } from '../../domain/ledger';
import type { TestApp } from '../helpers/app';

let seq = 0;

export function testPayer(seed = `payer-${process.pid}-${++seq}-${Date.now()}`): PrivateKeyAccount {
  return privateKeyToAccount(keccak256(toHex(seed)));
}

/** Opens an account for the user and registers the payer wallet to it (signed by the wallet). */
export async function registerPayer(t: TestApp, headers: Record<string, string>, payer: PrivateKeyAccount): Promise<string> {
  const acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers, payload: { name: 'x402 wallet account' } })).json().data.uuid as string;
  const msg = await t.app.inject({ method: 'GET', url: `/api/v2/x402/wallets?address=${payer.address}&account_id=${acct}`, headers });
  const message = msg.json().meta.registration_message as string;
  const signature = await payer.signMessage({ message });
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/x402/wallets', headers, payload: { address: payer.address, account_id: acct, signature } });
  expect(r.statusCode, r.body).toBe(201);
  return acct;
}

/** Credits USDC to an account's book on a chain (sandbox funding → customer), as a deposit on that chain would. */
export async function fundUsdc(accountId: string, chain: string, amount: string): Promise<void> {
  await withTransaction(async (c) => {
    const key = `test-fund:${accountId}:${chain}:${++seq}:${Date.now()}`;
    await postEntry(
      {
        environment: 'sandbox',
        idempotencyKey: key,
        type: 'deposit',
        lines: [
          { accountId: await systemAccount('sandbox', 'USDC', 'funding', key, c), direction: 'debit', amount },
          { accountId: await ensureChainLedgerAccount(c, accountId, 'USDC', chain), direction: 'credit', amount },
        ],
      },
      c,
    );
  });
}

export function requiredFrom(headers: Record<string, unknown>): PaymentRequired {
  return decodePaymentRequiredHeader(String(headers['payment-required']));
}

/** Pays the first requirement of a 402 with the x402 client library (EIP-3009 exact scheme). */
export async function payWithClient(payer: PrivateKeyAccount, required: PaymentRequired): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(payer) });
  return client.createPaymentPayload(required);
}

export const paymentHeader = (p: PaymentPayload) => ({ 'payment-signature': encodePaymentSignatureHeader(p) });

/** The spec's header pair for the same payment. */
export const specHeaders = (p: PaymentPayload) => ({
  'x-payment-signature': String((p.payload as { signature: string }).signature),
  'x-payment-payload': Buffer.from(JSON.stringify({ accepted: p.accepted, authorization: (p.payload as { authorization: unknown }).authorization })).toString('base64'),
});

export interface Tamper {
  to?: string;
  value?: string;
  chainId?: number;
  name?: string;
  version?: string;
  verifyingContract?: Hex;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
}

/** Signs an authorization for a requirement by hand, with any field or domain part changed. */
export async function signAuthorization(payer: PrivateKeyAccount, req: PaymentRequirements, chainId: number, tamper: Tamper = {}): Promise<PaymentPayload> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: payer.address,
    to: (tamper.to ?? req.payTo) as Hex,
    value: BigInt(tamper.value ?? req.amount),
    validAfter: tamper.validAfter ?? now - 60n,
    validBefore: tamper.validBefore ?? now + 300n,
    nonce: tamper.nonce ?? keccak256(toHex(`nonce-${Math.random()}-${++seq}`)),
  };
  const extra = req.extra as { name: string; version: string };
  const signature = await payer.signTypedData({
    domain: { name: tamper.name ?? extra.name, version: tamper.version ?? extra.version, chainId: tamper.chainId ?? chainId, verifyingContract: tamper.verifyingContract ?? (req.asset as Hex) },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return {
    x402Version: 2,
    accepted: req,
    payload: {
      signature,
      authorization: { ...authorization, value: authorization.value.toString(), validAfter: authorization.validAfter.toString(), validBefore: authorization.validBefore.toString() },
    },
  };
}
