import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { printedSchema } from '../../api/graphql/sdl';

it('docs/graphql/schema.graphql is the live schema (run npm run graphql:schema after changing a module)', async () => {
  expect(readFileSync('docs/graphql/schema.graphql', 'utf8')).toBe(await printedSchema());
});
