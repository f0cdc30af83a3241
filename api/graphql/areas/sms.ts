/**
 * Payment-gated SMS over GraphQL: a message's status, delivery and payment for its owner (the payer
 * wallet's customer; operators any of the environment), one call of the domain function the REST
 * status route calls (api/routes/sms). Sending stays REST-only: it is the x402/Payment handshake
 * (402 with the price, then the paid call), which GraphQL does not carry.
 */
import { findSmsMessageFor } from '../../../domain/sms/messages';
import { presentSms } from '../../../domain/sms/send';
import { as, type GqlContext } from '../context';
import type { GraphQLArea } from './types';
import { camelize } from '../rest';

const typeDefs = /* GraphQL */ `
  "A paid SMS: delivery and payment."
  type SmsMessage {
    messageId: ID!
    "pending, sent, delivered or failed."
    status: String!
    parts: Int!
    "GSM-7 or UCS-2."
    encoding: String!
    destination: String!
    countryCode: String!
    "USDC atomic units, 6 decimals (48000 = 0.048 USDC)."
    priceUsdc: String!
    "pending, settled, refunded or failed."
    paymentStatus: String!
    paymentId: String
    transactionHash: String
    sentAt: DateTime
    deliveredAt: DateTime
    failedAt: DateTime
    failureCode: String
    failureReason: String
    createdAt: DateTime!
  }

  extend type Query {
    "A message's status, delivery and payment (its owner; operators any of the environment)."
    smsMessage(id: ID!): SmsMessage!
  }
`;

export function smsArea(): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        smsMessage: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: 'SMS' });
          return camelize(await presentSms(await findSmsMessageFor({ userId: c.userId, environment: c.environment, operator: c.principal.isAdmin }, args.id)));
        },
      },
    },
  };
}
