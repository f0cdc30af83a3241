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
import { localServices } from '../lib/local-services';

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

const startedAt = Date.now();
console.log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
// PostgreSQL and NATS from BENCH_DATABASE_URL / NATS_URL, else embedded ones for this run only.
const services = await localServices({ databaseUrlFrom: ['BENCH_DATABASE_URL'], nats: true, log: (m) => console.log(`note: ${m}`) });
process.env.BENCH_DATABASE_URL = services.adminDatabaseUrl;
const stopServices = () => services.stop();
process.once('SIGINT', () => void stopServices().finally(() => process.exit(130)));
console.log(services.started.length ? `services: ${services.started.join(', ')}` : 'services: BENCH_DATABASE_URL and NATS_URL');
let failed = false;
try {
  const only = process.argv.slice(2).map((a) => a.toLowerCase());
  for (const [name, run] of benches) {
    if (only.length && !only.some((o) => name.toLowerCase().includes(o))) continue;
    console.log(`\n== ${name}`);
    await run();
  }
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await stopServices();
}
console.log(`\nbench finished in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
process.exit(failed ? 1 : 0);
