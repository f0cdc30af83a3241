/**
 * Secrets at rest (webhook signing secrets): AES-256-GCM from node:crypto under a master key.
 *
 * Sealed form, one ASCII string: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (iv, tag and ciphertext
 * base64url; a fresh random 96-bit IV per seal, a 128-bit tag). The additional authenticated data
 * is `v1.<keyId>` plus an optional context (the owning row's id), so a value cannot be moved to
 * another key id or another row without failing its tag. Opening a tampered value, one sealed
 * under a key not configured, or a malformed string throws SecretBoxError: never garbage.
 *
 * Master keys: SECRETS_MASTER_KEYS = `<keyId>:<base64 of 32 bytes>,<keyId>:<...>`; the first one
 * seals, every one opens. Rotation: put the new key first (keep the old after it), re-seal, then
 * drop the old. Unset: one key is generated and kept in `<DATA_DIR>/secrets-master-key` in the
 * same `<keyId>:<base64>` form (as the platform's other generated secrets), so one machine keeps
 * it across restarts; several instances need the setting with the same value.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from './config';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const B64URL = /^[A-Za-z0-9_-]*$/;
export const MASTER_KEY_FILE = 'secrets-master-key';

/** A value that cannot be opened, or a key list that cannot be used. Messages never carry key material or plaintext. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export interface MasterKey {
  id: string;
  key: Buffer;
}

export interface SecretBox {
  /** The id of the key new values are sealed under. */
  readonly currentKeyId: string;
  seal(plaintext: string, context?: string): string;
  open(sealed: string, context?: string): string;
  /** The key id a sealed value names (without opening it), or null when it is not a sealed value. */
  keyIdOf(sealed: string): string | null;
}

/** `<keyId>:<base64 32 bytes>` entries, comma-separated (whitespace ignored). */
export function parseMasterKeys(raw: string, setting = 'SECRETS_MASTER_KEYS'): MasterKey[] {
  const keys: MasterKey[] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon).trim();
    const material = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) throw new SecretBoxError(`Setting ${setting}: each entry must be <keyId>:<base64 of 32 bytes> with a key id of 1 to 32 letters, digits, "_" or "-"`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(material)) throw new SecretBoxError(`Setting ${setting}: key "${id}" is not base64`);
    const key = Buffer.from(material, 'base64');
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`Setting ${setting}: key "${id}" must be ${KEY_BYTES} bytes (AES-256), got ${key.length}`);
    if (keys.some((k) => k.id === id)) throw new SecretBoxError(`Setting ${setting}: key id "${id}" appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new SecretBoxError(`Setting ${setting} names no key`);
  return keys;
}

const aad = (keyId: string, context: string | undefined) => Buffer.from(`${VERSION}.${keyId}${context === undefined ? '' : `.${context}`}`, 'utf8');

export function createSecretBox(keys: MasterKey[]): SecretBox {
  if (keys.length === 0) throw new SecretBoxError('a secret box needs at least one master key');
  for (const k of keys) {
    if (!KEY_ID.test(k.id)) throw new SecretBoxError(`master key id "${k.id}" must be 1 to 32 letters, digits, "_" or "-"`);
    if (k.key.length !== KEY_BYTES) throw new SecretBoxError(`master key "${k.id}" must be ${KEY_BYTES} bytes (AES-256), got ${k.key.length}`);
  }
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const current = keys[0];

  const parse = (sealed: string) => {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    if (parts.length !== 5 || parts[0] !== VERSION || !KEY_ID.test(parts[1])) return null;
    const [iv, tag, ct] = parts.slice(2).map((p) => (B64URL.test(p) ? Buffer.from(p, 'base64url') : null));
    // Canonical base64url only: a changed spare bit in a last character is refused too.
    if (!iv || !tag || !ct || iv.toString('base64url') !== parts[2] || tag.toString('base64url') !== parts[3] || ct.toString('base64url') !== parts[4]) return null;
    return { keyId: parts[1], iv, tag, ct };
  };

  return {
    currentKeyId: current.id,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(current.id, context));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const p = parse(sealed);
      if (!p) throw new SecretBoxError(`not a sealed secret (expected ${VERSION}.<keyId>.<iv>.<tag>.<ciphertext>)`);
      const key = byId.get(p.keyId);
      if (!key) throw new SecretBoxError(`sealed under master key "${p.keyId}", which is not configured (SECRETS_MASTER_KEYS)`);
      if (p.iv.length !== IV_BYTES || p.tag.length !== TAG_BYTES) throw new SecretBoxError('sealed secret has a malformed iv or tag');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, p.iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(p.keyId, context));
        decipher.setAuthTag(p.tag);
        return Buffer.concat([decipher.update(p.ct), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(`sealed secret failed authentication under master key "${p.keyId}" (tampered, moved, or a different key with that id)`);
      }
    },
    keyIdOf(sealed) {
      return parse(sealed)?.keyId ?? null;
    },
  };
}

/** The generated key of this machine: read from the data folder, or made and kept there (mode 0600). */
function generatedKeys(): string {
  const dir = loadConfig().dataDir;
  const file = path.join(dir, MASTER_KEY_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const entry = `gen-${randomBytes(4).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}`;
  mkdirSync(dir, { recursive: true });
  // wx: two processes starting at once keep the first one's key.
  try {
    writeFileSync(file, entry, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(file, 'utf8').trim();
  }
  return entry;
}

let cached: { raw: string; box: SecretBox } | undefined;

/** The platform's box: SECRETS_MASTER_KEYS, else the generated key (re-read when the setting changes). */
export function secretBox(): SecretBox {
  const configured = (process.env.SECRETS_MASTER_KEYS ?? '').trim();
  const raw = configured || `file:${loadConfig().dataDir}`;
  if (cached?.raw === raw) return cached.box;
  const box = createSecretBox(configured ? parseMasterKeys(configured) : parseMasterKeys(generatedKeys(), path.join(loadConfig().dataDir, MASTER_KEY_FILE)));
  cached = { raw, box };
  return box;
}
