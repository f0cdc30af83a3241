// `npm run bench`: every benchmark, one after the other (each uses its own database and, where it
// needs one, its own Temporal dev server). Figures go to stdout; README lists the latest ones.
import os from 'node:os';
import { benchIso20022 } from './iso20022';
import { benchLedger } from './ledger';
import { benchRails } from './rails';
import { benchTransfers } from './transfers';
import { benchWebhooks } from './webhooks';
import { benchGcu } from './gcu';
import { benchSanctions } from './sanctions';
import { benchPasskeys } from './passkeys';
import { benchMobileFeed } from './mobile-feed';
import { benchSdk } from './sdk';
import { benchX402 } from './x402';
import { benchAi } from './ai';
import { benchAiParse } from './ai-parse';
import { benchOpenBanking } from './open-banking';
import { benchMicrofinance } from './microfinance';
import { benchGraphql } from './graphql';

const benches: Array<[string, () => Promise<void>]> = [
  ['Transfers through the API', benchTransfers],
  ['Ledger postings', benchLedger],
  ['ISO 20022', benchIso20022],
  ['Payment rails and ACH files', benchRails],
  ['Webhook deliveries', benchWebhooks],
  ['GCU composition', benchGcu],
  ['Sanctions screening', benchSanctions],
  ['Passkeys verification', benchPasskeys],
  ['Mobile activity feed', benchMobileFeed],
  ['SDK generation', benchSdk],
  ['x402 paid requests', benchX402],
  ['AI query parser', benchAiParse],
  ['AI transaction queries', benchAi],
  ['Open banking AIS reads', benchOpenBanking],
  ['Microfinance provisioning run', benchMicrofinance],
  ['GraphQL queries and subscriptions', benchGraphql],
];

console.log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
const only = process.argv.slice(2).map((a) => a.toLowerCase());
for (const [name, run] of benches) {
  if (only.length && !only.some((o) => name.toLowerCase().includes(o))) continue;
  console.log(`\n== ${name}`);
  await run();
}
process.exit(0);
