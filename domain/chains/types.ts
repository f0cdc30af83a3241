/** Types of the chain adapter (domain/chains/adapter.ts re-exports them). */
export type ChainTxStatus = 'pending' | 'included' | 'finalized' | 'reverted' | 'dropped';

export type ChainTxKind = 'transfer' | 'bridge_lock' | 'bridge_burn' | 'bridge_release' | 'bridge_mint' | 'swap' | 'flash_loan';
export const CHAIN_TX_KINDS: readonly ChainTxKind[] = ['transfer', 'bridge_lock', 'bridge_burn', 'bridge_release', 'bridge_mint', 'swap', 'flash_loan'];

export interface ChainTxRequest {
  chain: string;
  from: string;
  to: string;
  kind: ChainTxKind;
  /** Token symbol on that chain. */
  token: string;
  /** Decimal string in token units (at most the token's on-chain decimals). */
  amount: string;
  /** Protocol-specific payload, hashed into the tx. The sandbox reads `sandbox` (docs/crosschain.md). */
  data?: Record<string, unknown>;
  /** Same key -> same tx (workflow id + step). */
  idempotencyKey: string;
  /** Refused before submission when the chain's gas price is above it. */
  maxGasPriceGwei?: string;
}

export interface ChainTx {
  chain: string;
  hash: string;
  status: ChainTxStatus;
  blockNumber: number | null;
  confirmations: number;
  gasPriceGwei: string;
  gasUsed: string;
  submittedAt: string;
  failureReason: string | null;
}

export interface ChainAdapter {
  gasPriceGwei(chain: string, at: Date): Promise<string>;
  blockNumber(chain: string, at: Date): Promise<number>;
  sendTransaction(req: ChainTxRequest, at: Date): Promise<ChainTx>;
  getTransaction(chain: string, hash: string, at: Date): Promise<ChainTx | null>;
}
