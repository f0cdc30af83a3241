import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../domain/platform/ids';
import { insertSmsMessage } from '../../domain/sms/messages';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let other: TestUser;
let operator: TestUser;
let messageId: string;

beforeAll(async () => {
  t = await createTestApp();
  other = await createTestUser();
  operator = await createTestUser({ admin: true });
  // A paid message of the test user's, as the x402 send records it (sending itself stays REST-only).
  messageId = newId('sms');
  await insertSmsMessage({
    id: messageId,
    environment: 'sandbox',
    ownerUserId: t.user.userId,
    payer: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    paymentKey: `key-${messageId}`,
    agentKeyId: null,
    destination: '+4915123456789',
    countryCode: 'DE',
    sender: 'Finance',
    body: 'Your code is 123456',
    parts: 1,
    encoding: 'GSM-7',
    priceUsdc: '48000',
    workflowId: `sms-send-${messageId}`,
  });
}, 120_000);
afterAll(async () => t?.close());

const QUERY = (id: string) => `{ smsMessage(id: "${id}") { messageId status parts encoding destination countryCode priceUsdc paymentStatus paymentId transactionHash sentAt deliveredAt failedAt failureCode failureReason createdAt } }`;

describe('SMS status over GraphQL', () => {
  it("reads the owner's message as REST shows it; an operator reads it too", async () => {
    const rest = await t.app.inject({ method: 'GET', url: `/api/v1/sms/status/${messageId}`, headers: t.headers });
    expect(rest.statusCode, rest.body).toBe(200);
    const r = rest.json().data;
    const expected = {
      messageId: r.message_id,
      status: r.status,
      parts: r.parts,
      encoding: r.encoding,
      destination: r.destination,
      countryCode: r.country_code,
      priceUsdc: r.price_usdc,
      paymentStatus: r.payment_status,
      paymentId: r.payment_id,
      transactionHash: r.transaction_hash,
      sentAt: r.sent_at,
      deliveredAt: r.delivered_at,
      failedAt: r.failed_at,
      failureCode: r.failure_code,
      failureReason: r.failure_reason,
      createdAt: r.created_at,
    };
    expect((await gqlOk(t, QUERY(messageId))).smsMessage).toEqual(expected);
    expect((await gqlOk(t, QUERY(messageId), undefined, operator.headers)).smsMessage).toEqual(expected);
  });

  it("another customer's message is REST's not-found; a guest is refused", async () => {
    const rest = await t.app.inject({ method: 'GET', url: `/api/v1/sms/status/${messageId}`, headers: other.headers });
    expect(rest.statusCode).toBe(404);
    await gqlRefused(t, QUERY(messageId), rest.json().errors[0].code, 404, undefined, other.headers);
    await gqlRefused(t, QUERY('sms_unknown'), rest.json().errors[0].code, 404);
    await gqlRefused(t, QUERY(messageId), 'UNAUTHENTICATED', 401, undefined, {});
  });
});
