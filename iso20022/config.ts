import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, derived from this file so it works under tsx, vitest and the API alike. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Iso20022Config {
  /** Directory holding the official `<message>.xsd` files (never copied into the repo). */
  xsdDir: string;
  /** Largest accepted XML body, in bytes. */
  maxBytes: number;
  /** Deepest accepted element nesting; ISO 20022 messages stay well under 30. */
  maxDepth: number;
}

function positiveInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Read on every call so tests and operators can change the environment without a restart of the module. */
export function getConfig(): Iso20022Config {
  return {
    xsdDir: process.env.ISO20022_XSD_DIR || path.resolve(REPO_ROOT, '../shared/iso20022/xsd'),
    maxBytes: positiveInt(process.env.ISO20022_MAX_BYTES, 10 * 1024 * 1024),
    maxDepth: positiveInt(process.env.ISO20022_MAX_DEPTH, 100),
  };
}
