// `npm run operator -- grant <email>` | `revoke <email>` | `list`: makes, unmakes or lists platform
// operators, for whoever has shell and database access (DATABASE_URL). The user must have
// registered first. With `npm start` on its embedded database (one connection, held by the
// platform), become the first operator with the bootstrap token printed at start instead.
import { listOperators, setOperator } from '../domain/auth/operators';
import { closePool } from '../domain/db/pool';

const USAGE = 'usage: npm run operator -- grant <email> | revoke <email> | list';

async function main(args: string[]): Promise<number> {
  const [command, email] = args;
  if (!process.env.DATABASE_URL) {
    console.error('DATABASE_URL is not set. With `npm start` on the embedded database, use the bootstrap token it prints.');
    return 2;
  }
  if (command === 'list' && !email) {
    for (const op of await listOperators()) console.log(`${op.email}\t${op.id}`);
    return 0;
  }
  if ((command !== 'grant' && command !== 'revoke') || !email || args.length !== 2) {
    console.error(USAGE);
    return 2;
  }
  const user = await setOperator(email, command === 'grant');
  if (!user) {
    console.error(`No user with email ${email}: register first (POST /api/auth/register).`);
    return 1;
  }
  console.log(command === 'grant' ? `${user.email} (${user.id}) is now a platform operator.` : `${user.email} (${user.id}) is no longer a platform operator.`);
  if (!user.notified) console.log('Running API processes could not be told over NATS (NATS_URL); their API keys follow within 5 s.');
  return 0;
}

main(process.argv.slice(2))
  .then(async (code) => {
    await closePool();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error('operator:', err instanceof Error ? err.message : err);
    await closePool().catch(() => undefined);
    process.exit(1);
  });
