// `npm run graphql:schema`: prints the GraphQL schema's SDL into docs/graphql/schema.graphql (the
// file tests/graphql/schema-doc.test.ts compares with the live schema, so it cannot go stale).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { printedSchema } from '../api/graphql/sdl';

const out = path.resolve(import.meta.dirname, '..', 'docs', 'graphql', 'schema.graphql');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, await printedSchema());
console.log(`wrote ${out}`);
process.exit(0);
