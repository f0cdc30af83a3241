/**
 * A server secret for HMACs (signed links, payment challenge ids): the configured value, else a
 * random one kept in the data folder (as JWT_SECRET's fallback is), so one machine keeps it across
 * restarts. Every API instance that checks what another signed needs the same configured value.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from './config';

const keys = new Map<string, Buffer>();

export function serverSecret(fileName: string, configured: string): Buffer {
  const hit = keys.get(fileName);
  if (hit) return hit;
  let secret = configured;
  if (!secret) {
    const dir = loadConfig().dataDir;
    const file = path.join(dir, fileName);
    if (existsSync(file)) secret = readFileSync(file, 'utf8').trim();
    else {
      secret = randomBytes(48).toString('base64url');
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, secret, { mode: 0o600 });
    }
  }
  const key = Buffer.from(secret, 'utf8');
  keys.set(fileName, key);
  return key;
}
