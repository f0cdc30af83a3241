/** Data schema of payment_intent.created / .completed / .expired (domain/events/catalog.ts uses it). */
type Schema = Record<string, unknown>;

export const PAYMENT_INTENT_EVENT: Schema = {
  type: 'object',
  required: ['payment_intent_id', 'status', 'amount', 'currency', 'payee_user_id', 'description', 'expires_at', 'entry_id'],
  additionalProperties: false,
  properties: {
    payment_intent_id: { type: 'string', pattern: '^pi_' },
    status: { type: 'string', enum: ['requires_confirmation', 'processing', 'succeeded', 'canceled', 'expired'] },
    amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
    currency: { type: 'string' },
    payee_user_id: { type: 'string' },
    description: { type: ['string', 'null'] },
    expires_at: { type: 'string', format: 'date-time' },
    // The ledger entry that moved the money (completed only).
    entry_id: { type: ['string', 'null'] },
  },
};
