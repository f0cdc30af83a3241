/**
 * The protocols' attestation services: wormhole guardians (signed VAA), layerzero DVNs (packet
 * verification), axelar validators (event votes). The workflow polls one until it attests the
 * source transaction.
 *
 * Sandbox: reads the sandbox chain. A source transaction is attested `delaySeconds` after it has
 * the protocol's source confirmations (so attestation follows the caller's clock like the chain),
 * with an attestation id computed as the protocol does: wormhole the VAA digest
 * keccak256(keccak256(body)) over the real VAA body layout, layerzero the packet GUID
 * keccak256(nonce, srcEid, sender, dstEid, receiver), axelar the command id. A source transaction
 * carrying data.sandbox = 'stuck_relay' is observed but never attested; a reverted or dropped one
 * is never attested either.
 *
 * Production: the protocols' public indexers (Wormholescan, LayerZero Scan, Axelarscan), base
 * URLs from WORMHOLESCAN_URL / LAYERZERO_SCAN_URL / AXELARSCAN_URL; not run here.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { chainAdapterFor, SandboxChainAdapter } from '../chains/adapter';
import { getChain } from '../chains/registry';
import { sandboxBlockTime } from '../chains/sandbox';
import type { Environment } from '../platform/environment';
import { LAYERZERO_EIDS, PROTOCOLS, WORMHOLE_CHAIN_IDS, type BridgeProtocolId } from './bridges';

export interface AttestationRequest {
  protocol: BridgeProtocolId;
  sourceChain: string;
  destinationChain: string;
  sourceTxHash: string;
  sender: string;
  recipient: string;
}

export interface Attestation {
  status: 'pending' | 'attested';
  /** VAA digest / packet GUID / command id once attested. */
  id: string | null;
  attestedAt: string | null;
  detail: Record<string, unknown>;
}

export interface BridgeAttester {
  attestation(req: AttestationRequest, at: Date): Promise<Attestation>;
}

/** 32-byte form of an address (EVM left-padded, solana decoded), as the protocols carry them. */
export function addressBytes32(address: string): Uint8Array {
  const out = new Uint8Array(32);
  const raw = address.startsWith('0x') ? hexToBytes(address.slice(2).toLowerCase()) : base58.decode(address);
  out.set(raw.slice(-32), 32 - Math.min(32, raw.length));
  return out;
}

function be(n: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** A stable 64-bit number from a transaction hash (sequence / nonce of the sandbox message). */
function sequenceOf(hash: string): bigint {
  const h = keccak_256(new TextEncoder().encode(hash));
  return BigInt(`0x${bytesToHex(h.slice(0, 6))}`);
}

export class SandboxAttester implements BridgeAttester {
  constructor(private readonly chain = chainAdapterFor('sandbox') as SandboxChainAdapter) {}

  async attestation(req: AttestationRequest, at: Date): Promise<Attestation> {
    const p = PROTOCOLS[req.protocol];
    const source = getChain(req.sourceChain);
    const tx = await this.chain.getTransaction(source.id, req.sourceTxHash, at);
    const pending = (detail: Record<string, unknown>): Attestation => ({ status: 'pending', id: null, attestedAt: null, detail });
    if (!tx) return pending({ observed: false });
    const data = await this.chain.transactionData(source.id, req.sourceTxHash);
    if (tx.status === 'reverted' || tx.status === 'dropped') return pending({ observed: false, reason: `source transaction ${tx.status}` });
    if (tx.blockNumber === null) return pending({ observed: false });
    const required = p.sourceConfirmations(source);
    const confirmedAt = sandboxBlockTime(source.id, tx.blockNumber + required - 1);
    const attestedAt = new Date(confirmedAt.getTime() + p.attestation.delaySeconds * 1000);
    if (data?.data.sandbox === 'stuck_relay') {
      return pending({ observed: true, confirmations: tx.confirmations, required_confirmations: required, reason: `${p.attestation.kind} never reached quorum (sandbox stuck_relay)` });
    }
    if (at.getTime() < attestedAt.getTime()) {
      return pending({ observed: true, confirmations: tx.confirmations, required_confirmations: required, expected_at: attestedAt.toISOString() });
    }
    const sequence = sequenceOf(req.sourceTxHash);
    const emitter = addressBytes32(p.contract(source.id));
    let id: string;
    let detail: Record<string, unknown>;
    if (p.id === 'wormhole') {
      // VAA body: timestamp u32, nonce u32, emitter chain u16, emitter address 32, sequence u64,
      // consistency level u8, payload (here the transfer's digest). Signed digest = keccak256(keccak256(body)).
      const payload = keccak_256(concat(new TextEncoder().encode(req.sourceTxHash), addressBytes32(req.recipient)));
      const body = concat(
        be(BigInt(Math.floor(confirmedAt.getTime() / 1000)), 4),
        be(0n, 4),
        be(BigInt(WORMHOLE_CHAIN_IDS[source.id]), 2),
        emitter,
        be(sequence, 8),
        new Uint8Array([1]),
        payload,
      );
      id = `0x${bytesToHex(keccak_256(keccak_256(body)))}`;
      detail = { emitter_chain: WORMHOLE_CHAIN_IDS[source.id], emitter_address: bytesToHex(emitter), sequence: sequence.toString(), guardian_signatures: 13, guardian_set_size: 19 };
    } else if (p.id === 'layerzero') {
      const guid = keccak_256(
        concat(be(sequence, 8), be(BigInt(LAYERZERO_EIDS[source.id]), 4), addressBytes32(req.sender), be(BigInt(LAYERZERO_EIDS[req.destinationChain]), 4), addressBytes32(req.recipient)),
      );
      id = `0x${bytesToHex(guid)}`;
      detail = { nonce: sequence.toString(), src_eid: LAYERZERO_EIDS[source.id], dst_eid: LAYERZERO_EIDS[req.destinationChain], dvns_verified: ['LayerZero Labs', 'Google Cloud'], confirmations: required };
    } else {
      id = `0x${bytesToHex(keccak_256(new TextEncoder().encode(`${source.id}_${req.sourceTxHash}_0`)))}`;
      detail = { poll_id: sequence.toString(), yes_votes: 52, validators: 75, quorum: '2/3 of stake', source_chain: source.id };
    }
    return { status: 'attested', id, attestedAt: attestedAt.toISOString(), detail };
  }
}

export class BridgeIndexerNotConfigured extends Error {
  readonly code = 'BRIDGE_NOT_CONFIGURED';
}

/** Production: asks the protocol's public indexer whether the source transaction is attested. */
export class IndexerAttester implements BridgeAttester {
  constructor(
    private readonly urls: Record<BridgeProtocolId, string | undefined> = {
      wormhole: process.env.WORMHOLESCAN_URL,
      layerzero: process.env.LAYERZERO_SCAN_URL,
      axelar: process.env.AXELARSCAN_URL,
    },
  ) {}

  async attestation(req: AttestationRequest): Promise<Attestation> {
    const base = this.urls[req.protocol];
    if (!base) throw new BridgeIndexerNotConfigured(`No indexer URL for ${req.protocol} (WORMHOLESCAN_URL, LAYERZERO_SCAN_URL, AXELARSCAN_URL)`);
    const path =
      req.protocol === 'wormhole'
        ? `/api/v1/operations?txHash=${req.sourceTxHash}`
        : req.protocol === 'layerzero'
          ? `/v1/messages/tx/${req.sourceTxHash}`
          : `/gmp/searchGMP?txHash=${req.sourceTxHash}`;
    const r = await fetch(new URL(path, base));
    if (!r.ok) throw new Error(`${req.protocol} indexer answered ${r.status}`);
    const body = (await r.json()) as Record<string, unknown>;
    // Each indexer reports the attestation differently; the id is what they call it.
    const op = (body.operations as Array<Record<string, unknown>> | undefined)?.[0] ?? (body.data as Array<Record<string, unknown>> | undefined)?.[0];
    const vaa = (op?.vaa as Record<string, unknown> | undefined)?.id ?? op?.guid ?? (op?.approved as Record<string, unknown> | undefined)?.transactionHash;
    return vaa ? { status: 'attested', id: String(vaa), attestedAt: new Date().toISOString(), detail: { indexer: base } } : { status: 'pending', id: null, attestedAt: null, detail: { indexer: base } };
  }
}

const sandboxAttester = new SandboxAttester();

export function attesterFor(environment: Environment): BridgeAttester {
  return environment === 'production' ? new IndexerAttester() : sandboxAttester;
}
