import { defineConfig } from 'prisma/config';

// Migrations are SQL files applied by scripts/migrate.ts (recorded in _prisma_migrations as
// Prisma does), so `prisma migrate deploy` against the same database stays compatible. It applies
// the migrations only: the SQL function files (prisma/sql/functions) need `npm run migrate`.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
