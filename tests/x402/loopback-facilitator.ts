/**
 * A stand-in for a main-network x402 facilitator (the outside service production points
 * X402_FACILITATOR_URL at), on 127.0.0.1 only: it speaks x402 v2's facilitator protocol (GET
 * /supported, POST /verify, POST /settle), checks the EIP-3009 authorization's signature and terms as
 * a facilitator does before submitting it, and "submits" by remembering the nonce, so a second
 * settlement of one authorization fails as on chain. The platform's own sandbox facilitator takes
 * test networks only, so it cannot play this part. Given a loopback chain (./loopback-chain.ts), a
 * submission uses the authorization there too. A test can make the next /settle go wrong the ways
 * a real one does: the connection dropped after the authorization was submitted (the outcome is lost)
 * or before, or a 502 from a proxy in front of it.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddress } from 'viem';
import { parseSignedAuthorization, verifyAuthorization } from '../../domain/x402/authorization';
import { networksFor, paymentAsset, paymentNetwork } from '../../domain/x402/networks';
import type { LoopbackChain } from './loopback-chain';

export type SettleFault = 'drop-after-submit' | 'drop-before-submit' | 'bad-gateway';

export interface LoopbackFacilitator {
  url: string;
  settled: number;
  /** The next /settle goes wrong this way (once). */
  failNextSettle(fault: SettleFault): void;
  close(): Promise<void>;
}

async function check(body: any) {
  const r = body?.paymentRequirements ?? {};
  const network = paymentNetwork(r.network, 'production');
  const terms = { network, asset: paymentAsset(network, r.asset), amount: String(r.amount), payTo: String(r.payTo) };
  const signed = parseSignedAuthorization(body?.paymentPayload?.payload);
  const payer = await verifyAuthorization(signed, terms);
  return { signed, network: network.network, payer: getAddress(payer) };
}

export async function startLoopbackFacilitator(opts: { chain?: LoopbackChain } = {}): Promise<LoopbackFacilitator> {
  const nonces = new Set<string>();
  const state = { settled: 0, fault: null as SettleFault | null };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const send = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const path = (req.url ?? '').replace(/\?.*$/, '');
      if (req.method === 'GET' && path.endsWith('/supported')) {
        return send({ kinds: networksFor('production').map((n) => ({ x402Version: 2, scheme: 'exact', network: n.network })), extensions: [], signers: {} });
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      try {
        const { signed, network, payer } = await check(body);
        const key = `${network}:${payer}:${signed.authorization.nonce.toLowerCase()}`;
        if (path.endsWith('/verify')) return send(nonces.has(key) ? { isValid: false, invalidReason: 'PAYMENT_NONCE_USED', payer } : { isValid: true, payer });
        if (path.endsWith('/settle')) {
          const fault = state.fault;
          state.fault = null;
          if (fault === 'drop-before-submit') return void req.socket.destroy();
          if (fault === 'bad-gateway') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
          if (nonces.has(key)) return send({ success: false, errorReason: 'PAYMENT_NONCE_USED', transaction: '', network, payer });
          nonces.add(key);
          state.settled++;
          const transaction = opts.chain?.useAuthorization(payer, signed.authorization.nonce) ?? `0x${createHash('sha256').update(key).digest('hex')}`;
          if (fault === 'drop-after-submit') return void req.socket.destroy();
          return send({ success: true, payer, network, transaction });
        }
        res.writeHead(404).end();
      } catch (err) {
        const reason = (err as { code?: string }).code ?? 'invalid';
        return send(path.endsWith('/verify') ? { isValid: false, invalidReason: reason } : { success: false, errorReason: reason, transaction: '', network: String(body?.paymentRequirements?.network ?? '') });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get settled() {
      return state.settled;
    },
    failNextSettle(fault) {
      state.fault = fault;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
