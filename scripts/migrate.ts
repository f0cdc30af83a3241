// `npm run migrate`: applies pending SQL migrations (prisma/migrations), then the changed SQL
// function files (prisma/sql/functions), to DATABASE_URL, the same runner `npm start` uses at
// start-up; for deployments that migrate before rolling out the API.
import { migrate } from '../domain/db/migrate';

async function main(): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set (npm start migrates its embedded database by itself).');
    return 2;
  }
  const m = await migrate(url);
  console.log(m.applied.length ? `applied ${m.applied.join(', ')}` : `database is up to date (${m.alreadyApplied} migrations)`);
  if (m.functions.length) console.log(`SQL functions applied: ${m.functions.join(', ')}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
