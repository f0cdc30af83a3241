/**
 * Payment history: the payments a customer's wallets made and those their agent keys made, newest
 * first; operators see every payment of the environment (the platform's revenue side).
 */
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { PAYMENT_COLUMNS as COLUMNS, type X402Payment } from './payment-record';


export async function listPayments(
  scope: { userId: string; environment: Environment; operator: boolean },
  page: { limit: number; offset: number },
  c: Queryable = getPool(),
): Promise<{ items: X402Payment[]; total: number }> {
  const where = scope.operator
    ? 'environment = $1'
    : `environment = $1 AND (payer_user_id = $2 OR agent_key_id IN (SELECT id FROM api_keys WHERE user_id = $2))`;
  const params: unknown[] = scope.operator ? [scope.environment] : [scope.environment, scope.userId];
  const [{ rows }, count] = await Promise.all([
    c.query<X402Payment>(`SELECT ${COLUMNS} FROM x402_payments WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`, params),
    c.query<{ n: number }>(`SELECT count(*)::int AS n FROM x402_payments WHERE ${where}`, params),
  ]);
  return { items: rows, total: count.rows[0].n };
}
