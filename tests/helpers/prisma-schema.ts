import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../domain/platform/config';

export interface ModelColumn {
  column: string;
  /** PostgreSQL udt name the field maps to (text, int4, int8, bool, timestamptz, numeric, jsonb, _text ...) */
  udt: string;
  nullable: boolean;
}

const SCALARS: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Boolean: 'bool',
  DateTime: 'timestamp',
  Decimal: 'numeric',
  Json: 'jsonb',
  Float: 'float8',
  Bytes: 'bytea',
};

const NATIVE: Record<string, string> = {
  Timestamptz: 'timestamptz',
  Timestamp: 'timestamp',
  Decimal: 'numeric',
  VarChar: 'varchar',
  Text: 'text',
  Uuid: 'uuid',
  JsonB: 'jsonb',
  Json: 'json',
  SmallInt: 'int2',
  Char: 'bpchar',
  Date: 'date',
};

/**
 * Reads the models of prisma/schema.prisma into tables and columns (what Prisma would
 * expect in the database), for comparison with the migrated database.
 */
export function readPrismaModels(file = path.join(REPO_ROOT, 'prisma', 'schema.prisma')): Map<string, ModelColumn[]> {
  const text = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
  const models = new Map<string, ModelColumn[]>();
  const enums = new Set([...text.matchAll(/^enum\s+(\w+)/gm)].map((m) => m[1]));
  for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const [, name, body] = m;
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? name;
    const columns: ModelColumn[] = [];
    for (const line of body.split('\n').map((l) => l.trim())) {
      if (!line || line.startsWith('@@')) continue;
      const fm = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (!fm) continue;
      const [, field, type, list, optional, attrs] = fm;
      if (!(type in SCALARS) && !enums.has(type)) continue; // relation field, no column
      const native = /@db\.(\w+)/.exec(attrs)?.[1];
      let udt = enums.has(type) ? type : native ? (NATIVE[native] ?? native.toLowerCase()) : SCALARS[type];
      if (list) udt = `_${udt}`;
      columns.push({ column: /@map\("([^"]+)"\)/.exec(attrs)?.[1] ?? field, udt, nullable: !!optional });
    }
    models.set(table, columns);
  }
  return models;
}
