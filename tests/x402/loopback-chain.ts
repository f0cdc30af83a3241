/**
 * A stand-in for a main network's JSON-RPC node (what X402_RPC_URLS points at), on 127.0.0.1 only:
 * enough of the protocol for the settlement reconciliation (domain/x402/reconcile.ts) to read it as
 * it reads a real node. It answers eth_blockNumber, eth_getBlockByNumber (the latest block, at the
 * chain's clock), eth_call of USDC's `authorizationState(authorizer, nonce)` (decoded with viem's
 * decodeFunctionData, the bool encoded with encodeFunctionResult) and eth_getLogs of
 * `AuthorizationUsed`. An authorization is used when the loopback facilitator submits it (or a
 * test says so); the clock is the wall clock unless a test sets it, so "validBefore has passed"
 * is a choice of data, not a wait.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFunctionData, encodeEventTopics, encodeFunctionResult, keccak256, parseAbi, toHex, type Hex } from 'viem';

const USDC = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)', 'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)']);

export interface LoopbackChain {
  url: string;
  /** Marks an authorization used in a new block, as its transferWithAuthorization would; returns the transaction hash. */
  useAuthorization(authorizer: string, nonce: string): Hex;
  /** The transaction that used an authorization, if one did. */
  transactionOf(authorizer: string, nonce: string): Hex | null;
  /** The chain's clock (unix seconds) from now on; null: the wall clock. */
  setTime(seconds: bigint | null): void;
  /** JSON-RPC methods asked, in order (what reconciliation read). */
  calls: string[];
  close(): Promise<void>;
}

interface Use {
  authorizer: string;
  nonce: string;
  tx: Hex;
  block: bigint;
}

const hex = (n: bigint) => toHex(n);

export async function startLoopbackChain(): Promise<LoopbackChain> {
  const uses: Use[] = [];
  const calls: string[] = [];
  let time: bigint | null = null;
  let head = 1_000n;
  const now = () => time ?? BigInt(Math.floor(Date.now() / 1000));
  const block = (n: bigint) => ({
    number: hex(n),
    hash: keccak256(toHex(`block-${n}`)),
    parentHash: keccak256(toHex(`block-${n - 1n}`)),
    timestamp: hex(now()),
    nonce: '0x0000000000000000',
    logsBloom: `0x${'0'.repeat(512)}`,
    miner: '0x0000000000000000000000000000000000000000',
    gasLimit: '0x1c9c380',
    gasUsed: '0x0',
    baseFeePerGas: '0x1',
    extraData: '0x',
    size: '0x0',
    difficulty: '0x0',
    totalDifficulty: '0x0',
    sha3Uncles: keccak256('0x'),
    stateRoot: keccak256('0x01'),
    transactionsRoot: keccak256('0x02'),
    receiptsRoot: keccak256('0x03'),
    mixHash: keccak256('0x04'),
    transactions: [],
    uncles: [],
  });
  const key = (a: string, n: string) => `${a.toLowerCase()}:${n.toLowerCase()}`;
  const usedAt = (a: string, n: string, at: bigint) => uses.find((u) => key(u.authorizer, u.nonce) === key(a, n) && u.block <= at);
  const blockOf = (tag: unknown) => (typeof tag === 'string' && tag.startsWith('0x') ? BigInt(tag) : head);

  const answer = (method: string, params: any[]): unknown => {
    switch (method) {
      case 'eth_chainId':
        return hex(8453n);
      case 'eth_blockNumber':
        return hex(head);
      case 'eth_getBlockByNumber':
        return block(blockOf(params[0]));
      case 'eth_call': {
        const { functionName, args } = decodeFunctionData({ abi: USDC, data: params[0].data as Hex });
        if (functionName !== 'authorizationState') throw new Error(`unexpected call ${functionName}`);
        const [authorizer, nonce] = args as [string, string];
        return encodeFunctionResult({ abi: USDC, functionName, result: !!usedAt(authorizer, nonce, blockOf(params[1])) });
      }
      case 'eth_getLogs': {
        const f = params[0] as { topics?: (string | null)[]; fromBlock?: string; toBlock?: string };
        const from = f.fromBlock ? BigInt(f.fromBlock) : 0n;
        const to = f.toBlock && f.toBlock !== 'latest' ? BigInt(f.toBlock) : head;
        return uses
          .filter((u) => u.block >= from && u.block <= to)
          .map((u) => ({ u, topics: encodeEventTopics({ abi: USDC, eventName: 'AuthorizationUsed', args: { authorizer: u.authorizer as Hex, nonce: u.nonce as Hex } }) }))
          .filter(({ topics }) => (f.topics ?? []).every((t, i) => t === null || t === undefined || t.toLowerCase() === String(topics[i]).toLowerCase()))
          .map(({ u, topics }, i) => ({
            address: (params[0] as { address?: string }).address,
            topics,
            data: '0x',
            blockNumber: hex(u.block),
            blockHash: keccak256(toHex(`block-${u.block}`)),
            transactionHash: u.tx,
            transactionIndex: '0x0',
            logIndex: hex(BigInt(i)),
            removed: false,
          }));
      }
      default:
        throw new Error(`method ${method} not served`);
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const one = (r: { id: unknown; method: string; params?: any[] }) => {
        calls.push(r.method);
        try {
          return { jsonrpc: '2.0', id: r.id, result: answer(r.method, r.params ?? []) };
        } catch (err) {
          return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: (err as Error).message } };
        }
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    useAuthorization(authorizer, nonce) {
      head += 1n;
      const tx = keccak256(toHex(`transferWithAuthorization:${key(authorizer, nonce)}`));
      uses.push({ authorizer, nonce, tx, block: head });
      return tx;
    },
    transactionOf(authorizer, nonce) {
      return usedAt(authorizer, nonce, head)?.tx ?? null;
    },
    setTime(seconds) {
      time = seconds;
    },
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
