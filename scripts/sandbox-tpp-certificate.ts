// `npm run sandbox:tpp-cert -- "<TPP name>" PSP_AI [PSP_PI ...] [--authorisation-number PSDXX-SANDBOX-12345678] [--ca]`:
// issues a sandbox TPP certificate from the platform's sandbox CA (in the database at DATABASE_URL)
// and prints it, then its private key (PKCS#8), as PEM on standard output; --ca prints the sandbox CA
// certificate first (what the mutual-TLS proxy's client CA list needs). The key is printed once and
// kept nowhere: redirect the output to a file. Register the certificate with POST /api/v1/open-banking/tpps.
import { closePool } from '../domain/db/pool';
import { PSD2_ROLES, type Psd2Role } from '../domain/open-banking/certificates';
import { issueSandboxCertificate, sandboxCa } from '../domain/open-banking/sandbox-ca';
import { DomainError } from '../domain/platform/errors';

const USAGE = `usage: npm run sandbox:tpp-cert -- "<TPP name>" <role> [<role> ...] [--authorisation-number <PSD..-..-..>] [--ca]
roles: ${PSD2_ROLES.join(', ')}`;

async function main(args: string[]): Promise<number> {
  if (!process.env.DATABASE_URL) {
    console.error('DATABASE_URL is not set: the sandbox CA lives in the platform database.');
    return 2;
  }
  let authorisationNumber: string | undefined;
  let withCa = false;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--authorisation-number') authorisationNumber = args[++i];
    else if (args[i] === '--ca') withCa = true;
    else rest.push(args[i]);
  }
  const [name, ...roleArgs] = rest;
  const roles = roleArgs.flatMap((r) => r.split(',')).map((r) => r.trim().toUpperCase()).filter(Boolean);
  const unknown = roles.filter((r) => !(PSD2_ROLES as readonly string[]).includes(r));
  if (!name || roles.length === 0 || unknown.length > 0 || (args.includes('--authorisation-number') && !authorisationNumber)) {
    if (unknown.length > 0) console.error(`unknown role(s): ${unknown.join(', ')}`);
    console.error(USAGE);
    return 2;
  }
  const issued = await issueSandboxCertificate({ name, roles: roles as Psd2Role[], authorisationNumber });
  if (withCa) process.stdout.write((await sandboxCa()).certificatePem);
  process.stdout.write(issued.certificate);
  process.stdout.write(issued.privateKey);
  console.error(`Issued for ${name}: ${issued.authorisationNumber}, roles ${issued.roles.join(', ')}, valid until ${issued.notAfter.toISOString()}`);
  return 0;
}

main(process.argv.slice(2))
  .then(async (code) => {
    await closePool();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error('sandbox-tpp-certificate:', err instanceof DomainError || err instanceof Error ? err.message : err);
    await closePool().catch(() => undefined);
    process.exit(1);
  });
