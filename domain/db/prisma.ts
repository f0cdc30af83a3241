import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../prisma/generated/client';
import { getPool } from './pool';

let client: PrismaClient | undefined;

/** Prisma shares the platform's one pg pool, so both see the same connections and limits. */
export function getPrisma(): PrismaClient {
  if (!client) client = new PrismaClient({ adapter: new PrismaPg(getPool()) });
  return client;
}

export async function closePrisma(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    await c.$disconnect();
  }
}
