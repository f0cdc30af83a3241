import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';

/**
 * Checks every outbox event of the given domains (this test file's database) against its
 * catalog entry; returns the problems (empty when all validate) and the types seen.
 */
export async function checkOutboxAgainstCatalog(domains: string[]): Promise<{ problems: string[]; seen: Set<string>; count: number }> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const byType = new Map(EVENT_CATALOG.map((e) => [e.type, e]));
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const { rows } = await getPool().query<{ type: string; data: unknown }>(
    `SELECT type, data FROM platform_events WHERE split_part(type, '.', 1) = ANY($1::text[]) ORDER BY occurred_at`,
    [domains],
  );
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const info = byType.get(row.type);
    if (!info) {
      problems.push(`${row.type}: not in the catalog`);
      continue;
    }
    if (!info.produced) problems.push(`${row.type}: produced but marked produced: false`);
    let v = validators.get(row.type);
    if (!v) validators.set(row.type, (v = ajv.compile(info.data_schema)));
    if (!v(row.data)) problems.push(`${row.type}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(row.data)}`);
    seen.add(row.type);
  }
  return { problems: [...new Set(problems)], seen, count: rows.length };
}
