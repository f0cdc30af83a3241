import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseMasterKeys, secretBox, SecretBoxError, type MasterKey } from '../../domain/platform/secret-box';

const key = (id: string): MasterKey => ({ id, key: randomBytes(32) });

/** Replaces one base64url character of part `i` (2 iv, 3 tag, 4 ciphertext) with another. */
function tamper(sealed: string, i: number): string {
  const parts = sealed.split('.');
  const c = parts[i][0];
  parts[i] = (c === 'A' ? 'B' : 'A') + parts[i].slice(1);
  return parts.join('.');
}

describe('secret box (AES-256-GCM)', () => {
  it('round-trips, with a fresh IV each time and the v1.<keyId>.<iv>.<tag>.<ct> form', () => {
    const box = createSecretBox([key('k1')]);
    const a = box.seal('whsec_the-secret', 'webhook_1');
    const b = box.seal('whsec_the-secret', 'webhook_1');
    expect(a).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('the-secret');
    expect(box.open(a, 'webhook_1')).toBe('whsec_the-secret');
    expect(box.open(b, 'webhook_1')).toBe('whsec_the-secret');
    expect(box.open(box.seal(''), undefined)).toBe('');
    expect(box.open(box.seal('ünïcode ✓'))).toBe('ünïcode ✓');
    expect(box.keyIdOf(a)).toBe('k1');
  });

  it('refuses a tampered iv, tag, ciphertext or key id, and another context: an error, never garbage', () => {
    const k1 = key('k1');
    const box = createSecretBox([k1, { id: 'k2', key: k1.key }]);
    const sealed = box.seal('whsec_the-secret', 'webhook_1');
    for (const i of [2, 3, 4]) expect(() => box.open(tamper(sealed, i), 'webhook_1')).toThrow(SecretBoxError);
    // Same key material under another id: the id is authenticated data, so it still fails.
    expect(() => box.open(sealed.replace('v1.k1.', 'v1.k2.'), 'webhook_1')).toThrow(/failed authentication/);
    // Bound to its row: copied onto another webhook it does not open.
    expect(() => box.open(sealed, 'webhook_2')).toThrow(/failed authentication/);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
    // Truncated, extended, non-canonical or foreign strings.
    expect(() => box.open(sealed.slice(0, -2), 'webhook_1')).toThrow(SecretBoxError);
    expect(() => box.open(`${sealed}A`, 'webhook_1')).toThrow(SecretBoxError);
    expect(() => box.open(`${sealed}.x`, 'webhook_1')).toThrow(/not a sealed secret/);
    expect(() => box.open(sealed.replace(/^v1/, 'v2'), 'webhook_1')).toThrow(/not a sealed secret/);
    expect(() => box.open('whsec_plaintext', 'webhook_1')).toThrow(/not a sealed secret/);
    const parts = sealed.split('.');
    expect(() => box.open([...parts.slice(0, 2), parts[2].slice(0, 8), ...parts.slice(3)].join('.'), 'webhook_1')).toThrow(/malformed iv/);
  });

  it('two keys: the first seals, both open; an unknown key id is refused by name', () => {
    const old = key('old');
    const fresh = key('new');
    const before = createSecretBox([old]).seal('s1', 'w');
    const rotated = createSecretBox([fresh, old]);
    expect(rotated.currentKeyId).toBe('new');
    expect(rotated.open(before, 'w')).toBe('s1');
    const after = rotated.seal('s2', 'w');
    expect(after.startsWith('v1.new.')).toBe(true);
    expect(() => createSecretBox([old]).open(after, 'w')).toThrow(/master key "new", which is not configured/);
    expect(createSecretBox([fresh]).open(after, 'w')).toBe('s2');
    expect(() => createSecretBox([fresh]).open(before, 'w')).toThrow(SecretBoxError);
  });

  it('reads SECRETS_MASTER_KEYS and refuses a bad key length, a bad id, duplicates or nothing', () => {
    const b64 = randomBytes(32).toString('base64');
    const keys = parseMasterKeys(` a1:${b64} , b-2:${randomBytes(32).toString('base64url')}`);
    expect(keys.map((k) => k.id)).toEqual(['a1', 'b-2']);
    expect(keys[0].key.equals(Buffer.from(b64, 'base64'))).toBe(true);
    expect(() => parseMasterKeys(`a1:${randomBytes(16).toString('base64')}`)).toThrow(/must be 32 bytes \(AES-256\), got 16/);
    expect(() => parseMasterKeys(`a1:${randomBytes(33).toString('base64')}`)).toThrow(/got 33/);
    expect(() => parseMasterKeys(`a.1:${b64}`)).toThrow(/key id/);
    expect(() => parseMasterKeys(b64)).toThrow(/<keyId>:<base64/);
    expect(() => parseMasterKeys(`a1:${b64},a1:${b64}`)).toThrow(/appears twice/);
    expect(() => parseMasterKeys(' , ')).toThrow(/names no key/);
    expect(() => parseMasterKeys('a1:not base64!')).toThrow(/not base64/);
    expect(() => createSecretBox([{ id: 'k', key: randomBytes(31) }])).toThrow(/32 bytes/);
    // A setting's message never carries the key material.
    try {
      parseMasterKeys(`a1:${randomBytes(20).toString('base64')}`);
    } catch (e) {
      expect((e as Error).message).not.toMatch(/[A-Za-z0-9+/]{20,}/);
    }
  });

  it('unset: generates one key, keeps it in DATA_DIR (mode 0600) and finds it again', async () => {
    const saved = { keys: process.env.SECRETS_MASTER_KEYS, dir: process.env.DATA_DIR };
    const dir = await mkdtemp(path.join(tmpdir(), 'secret-box-'));
    try {
      delete process.env.SECRETS_MASTER_KEYS;
      process.env.DATA_DIR = dir;
      const sealed = secretBox().seal('kept', 'w');
      const file = path.join(dir, 'secrets-master-key');
      const entry = (await readFile(file, 'utf8')).trim();
      expect(entry).toMatch(/^gen-[0-9a-f]{8}:[A-Za-z0-9+/]{43}=$/);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // The same entry as a setting opens what the generated key sealed.
      process.env.SECRETS_MASTER_KEYS = entry;
      expect(secretBox().open(sealed, 'w')).toBe('kept');
      delete process.env.SECRETS_MASTER_KEYS;
      expect(secretBox().open(sealed, 'w')).toBe('kept');
    } finally {
      if (saved.keys === undefined) delete process.env.SECRETS_MASTER_KEYS;
      else process.env.SECRETS_MASTER_KEYS = saved.keys;
      if (saved.dir === undefined) delete process.env.DATA_DIR;
      else process.env.DATA_DIR = saved.dir;
    }
  });
});
