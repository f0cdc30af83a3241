import { type SmsRequest } from '../../../domain/sms/send';
import { errorResponses, timestamp } from '../../schemas';

export const TAGS = ['SMS'];
const nstr = { type: ['string', 'null'] };
export const messageSchema = {
  type: 'object',
  properties: {
    message_id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'sent', 'delivered', 'failed'] },
    parts: { type: 'integer' },
    encoding: { type: 'string', enum: ['GSM-7', 'UCS-2'] },
    destination: { type: 'string' },
    country_code: { type: 'string' },
    price_usdc: { type: 'string', description: 'USDC atomic units, 6 decimals (48000 = 0.048 USDC)' },
    payment_status: { type: 'string', enum: ['pending', 'settled', 'refunded', 'failed'] },
    payment_id: nstr,
    transaction_hash: nstr,
    sent_at: { anyOf: [timestamp, { type: 'null' }] },
    delivered_at: { anyOf: [timestamp, { type: 'null' }] },
    failed_at: { anyOf: [timestamp, { type: 'null' }] },
    failure_code: nstr,
    failure_reason: nstr,
    created_at: timestamp,
  },
};
export const success = { success: { type: 'boolean' } };
export const smsErrors = errorResponses;

/** The request's JSON with keys sorted: what a Payment challenge's digest binds (stable however the client orders keys). */
export const canonicalBody = (b: SmsRequest) => JSON.stringify({ from: b.from, message: b.message, to: b.to });
