import type { Principal } from '../../../domain/auth/principal';
import type { TransferBody } from './schemas';

/**
 * A transfer request (the REST body, or GraphQL's input checked against the same schema by
 * restInput) as the domain's transfer input: the caller is the sender, and the request's
 * Idempotency-Key is what the transfer records, so a request run again after a crash gets the
 * transfer it made.
 */
export function createInput(p: Principal, b: TransferBody, requestKey: string | undefined) {
  return {
    requestKey,
    userId: p.userId,
    environment: p.environment,
    fromAccountId: b.from_account,
    toAccountId: b.to_account,
    amount: b.amount,
    assetCode: b.asset_code,
    reference: b.reference,
    description: b.description,
    metadata: b.metadata,
  };
}
