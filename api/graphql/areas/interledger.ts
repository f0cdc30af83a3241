/**
 * Interledger over GraphQL (api/routes/interledger): quotes (fee, FX rate, expiry, Open Payments
 * amounts) and payments of a quote with their ILP packets. Each resolver is one call of the domain
 * function the REST route calls (domain/interledger), after the REST body schema (./rest-body).
 */
import { createQuote, openPaymentsAmount, type IlpQuote } from '../../../domain/interledger';
import { getOwnIlpPayment, getOwnQuote, startIlpPayment, type IlpPaymentView } from '../../../domain/interledger/payments';
import { paymentBody, quoteBody, TAG } from '../../operations/interledger/schemas';
import { as, type GqlContext } from '../context';
import { restBody } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "An amount in Open Payments form: an integer value in the asset's smallest unit."
  type OpenPaymentsAmount {
    value: String!
    assetCode: String!
    assetScale: Int!
  }

  type InterledgerOpenPaymentsAmounts {
    debitAmount: OpenPaymentsAmount!
    receiveAmount: OpenPaymentsAmount!
    fee: OpenPaymentsAmount!
  }

  "A quote for an Interledger payment: fixed until expiresAt, usable once."
  type InterledgerQuote {
    id: ID!
    "As given: a payment pointer or wallet address URL."
    receiver: String!
    walletAddress: String!
    sendAmount: Decimal!
    sendCurrency: String!
    "0.5 % of sendAmount."
    fee: Decimal!
    receiveAmount: Decimal!
    receiveCurrency: String!
    fxRate: Decimal!
    expiresAt: DateTime!
    "By the API's clock; paying checks expiry against the database's."
    expired: Boolean!
    used: Boolean!
    openPayments: InterledgerOpenPaymentsAmounts!
    createdAt: DateTime!
  }

  type IlpPacket {
    "prepare, fulfill or reject."
    type: String!
    base64: String!
  }

  "A payment of a quote over Interledger."
  type InterledgerPayment {
    id: ID!
    quoteId: ID!
    accountId: ID!
    "pending, reserved, completed or failed."
    status: String!
    workflowId: String!
    destination: String
    "SHA-256 condition (base64)."
    executionCondition: String
    fulfillment: String
    ilpRejectCode: String
    packets: [IlpPacket!]!
    failureCode: String
    failureReason: String
    compensationExecuted: Boolean!
    quote: InterledgerQuote!
    createdAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
  }

  input InterledgerQuoteInput {
    sendAmount: Decimal!
    sendCurrency: String!
    receiveCurrency: String!
    "A payment pointer ($wallet.example/alice) or wallet address URL (https)."
    receiver: String!
  }

  extend type Query {
    interledgerQuote(id: ID!): InterledgerQuote!
    interledgerPayment(id: ID!): InterledgerPayment!
  }

  extend type Mutation {
    "Quotes an Interledger payment (valid 5 minutes)."
    createInterledgerQuote(input: InterledgerQuoteInput!): InterledgerQuote!
    "Pays a quote from accountId (once; an expired quote is QUOTE_EXPIRED)."
    createInterledgerPayment(quoteId: ID!, accountId: ID!): InterledgerPayment!
  }
`;

type QuoteInput = { sendAmount: string; sendCurrency: string; receiveCurrency: string; receiver: string };
type QuoteBody = { send_amount: string; send_currency: string; receive_currency: string; receiver: string };

const paymentNode = (v: IlpPaymentView) => ({ ...v.payment, quote: v.quote });

export const interledgerArea = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      interledgerQuote: async (_: unknown, args: { id: string }, ctx: GqlContext) => getOwnQuote((await as(ctx, { tag: TAG })).principal, args.id),
      interledgerPayment: async (_: unknown, args: { id: string }, ctx: GqlContext) => paymentNode(await getOwnIlpPayment((await as(ctx, { tag: TAG })).principal, args.id)),
    },
    Mutation: {
      createInterledgerQuote: async (_: unknown, { input }: { input: QuoteInput }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const b = restBody<QuoteBody>(quoteBody, { send_amount: input.sendAmount, send_currency: input.sendCurrency, receive_currency: input.receiveCurrency, receiver: input.receiver });
        return createQuote({ userId: c.userId, environment: c.environment, sendAmount: b.send_amount, sendCurrency: b.send_currency, receiveCurrency: b.receive_currency, receiver: b.receiver });
      },
      createInterledgerPayment: async (_: unknown, args: { quoteId: string; accountId: string }, ctx: GqlContext) => {
        const c = await as(ctx, { permission: 'write', tag: TAG });
        const b = restBody<{ quote_id: string; account_id: string }>(paymentBody, { quote_id: args.quoteId, account_id: args.accountId });
        return paymentNode(await startIlpPayment({ userId: c.userId, environment: c.environment, quoteId: b.quote_id, accountId: b.account_id }));
      },
    },
    InterledgerQuote: {
      fee: (q: IlpQuote) => q.feeAmount,
      fxRate: (q: IlpQuote) => q.rate,
      expired: (q: IlpQuote) => q.expiresAt.getTime() <= Date.now(),
      used: (q: IlpQuote) => q.usedAt !== null,
      openPayments: (q: IlpQuote) => ({
        debitAmount: openPaymentsAmount(q.sendAmount, q.sendCurrency, q.sendScale),
        receiveAmount: openPaymentsAmount(q.receiveAmount, q.receiveCurrency, q.receiveScale),
        fee: openPaymentsAmount(q.feeAmount, q.sendCurrency, q.sendScale),
      }),
    },
  },
});
