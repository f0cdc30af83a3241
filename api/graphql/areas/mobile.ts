/**
 * The mobile app over GraphQL: payment intents, P2P transfers, receipts, the activity feed and
 * notifications, receive details, devices, the profile (handle/phone) and the caller's passkeys
 * (list and delete; the WebAuthn ceremonies stay REST-only). Each resolver is one call of the
 * domain function its REST route calls (api/routes/mobile). Intents and P2P transfers are shown
 * per viewer (the payer sees its account, the payee not): those go through the REST presenters,
 * so both transports apply the one visibility rule.
 */
import type { FastifyInstance } from 'fastify';
import { activityFeed, type FeedType } from '../../../domain/mobile/activity';
import { listDevices, registerDevice, removeDevice, type Device } from '../../../domain/mobile/devices';
import { cancelPaymentIntent, confirmPaymentIntent, createPaymentIntent, getPaymentIntent, listPaymentIntents, type IntentStatus } from '../../../domain/mobile/intents';
import { listNotifications, markNotificationRead } from '../../../domain/mobile/notifications';
import { getP2pTransfer, sendP2p } from '../../../domain/mobile/p2p';
import { deletePasskey, listPasskeys } from '../../../domain/mobile/passkeys';
import { getProfile, updateProfile } from '../../../domain/mobile/profiles';
import { getReceipt, type Receipt } from '../../../domain/mobile/receipts';
import { receiveDetails } from '../../../domain/mobile/receive';
import { presentIntent, presentP2p } from '../../operations/mobile/presenters';
import { as, mutationRequestKey, type GqlContext } from '../context';
import { PAGE_ARGS, pageOf, paginated, paginateList, paginatorOf, type PageArgs } from '../pagination';
import type { GraphQLArea } from './types';
import { camelize } from '../rest';

const typeDefs = /* GraphQL */ `
  enum PaymentIntentStatus {
    requires_confirmation
    processing
    succeeded
    canceled
    expired
  }

  type PaymentIntentRecipient {
    userId: ID!
    name: String!
    "The email, phone or @handle the payer named (the payer only)."
    identifier: String
  }

  type MobileError {
    code: String!
    message: String!
  }

  "What a customer will pay another, confirmed later (the payer's or the payee's view)."
  type PaymentIntent {
    id: ID!
    status: PaymentIntentStatus!
    amount: Decimal!
    currency: String!
    description: String
    recipient: PaymentIntentRecipient!
    "payer or payee: the caller's side."
    role: String!
    "At or above MOBILE_PASSKEY_THRESHOLD_USD confirming needs a passkey session."
    requiresPasskey: Boolean!
    amountUsd: Decimal!
    "The caller's own account on this intent."
    accountId: String
    fee: Decimal
    entryId: String
    receiptId: String
    "Why the last confirmation did not post (e.g. funds)."
    lastError: MobileError
    cancellationReason: String
    workflowId: String
    expiresAt: DateTime!
    createdAt: DateTime!
    confirmedAt: DateTime
    succeededAt: DateTime
    canceledAt: DateTime
    expiredAt: DateTime
  }

  type P2pParty {
    userId: ID!
    name: String!
    "The caller's own account only."
    accountId: String
  }

  type P2pFailure {
    code: String!
    reason: String
  }

  "A P2P transfer the caller sent or received."
  type P2pTransfer {
    id: ID!
    "sent or received."
    direction: String!
    status: String!
    amount: Decimal!
    currency: String!
    "The sender only."
    fee: Decimal
    note: String
    from: P2pParty!
    to: P2pParty!
    entryId: String
    receiptId: String
    failure: P2pFailure
    workflowId: String
    createdAt: DateTime!
    completedAt: DateTime
  }

  type ReceiptParty {
    userId: ID!
    name: String!
    accountId: String
  }

  type ReceiptLedger {
    entryId: ID!
    "The caller's own side: account_id, direction, amount."
    lines: JSON!
  }

  type MobileReceipt {
    id: ID!
    number: String!
    "payment_intent or p2p_transfer."
    kind: String!
    sourceId: String!
    issuedAt: DateTime!
    payer: ReceiptParty!
    payee: ReceiptParty!
    amount: Decimal!
    fee: Decimal!
    total: Decimal!
    currency: String!
    description: String
    ledger: ReceiptLedger!
  }

  enum MobileFeedType {
    transfer
    payment
    notification
  }

  type MobileFeedItem {
    id: ID!
    type: MobileFeedType!
    sourceId: String!
    occurredAt: DateTime!
    title: String!
    description: String
    direction: String
    status: String
    amount: Decimal
    currency: String
    counterparty: String
    p2p: Boolean!
    receiptId: String
    read: Boolean
  }

  type MobileNotification {
    id: ID!
    eventType: String!
    title: String!
    body: String!
    data: JSON!
    createdAt: DateTime!
    readAt: DateTime
  }

  type ReceiveOption {
    "chain or platform."
    kind: String!
    chain: String
    caip2: String
    address: String
    token: String
    tokenAddress: String
    "The payment-request URI for a QR code."
    uri: String!
    "EIP-681, BIP-21, Solana Pay or platform."
    standard: String!
  }

  type ReceiveDetails {
    accountId: ID!
    assetCode: String!
    amount: Decimal
    options: [ReceiveOption!]!
  }

  enum DevicePlatform {
    ios
    android
    web
  }

  type MobileDevice {
    id: ID!
    platform: DevicePlatform!
    name: String
    "The last characters of the push token."
    pushTokenSuffix: String!
    createdAt: DateTime!
    lastSeenAt: DateTime!
  }

  "How others find the caller."
  type MobileProfile {
    userId: ID!
    name: String!
    handle: String
    phone: String
  }

  type Passkey {
    id: ID!
    name: String!
    credentialId: String!
    createdAt: DateTime!
    lastUsedAt: DateTime
    transports: [String!]!
    "singleDevice or multiDevice."
    deviceType: String!
    backedUp: Boolean!
  }

  ${paginatorOf('PaymentIntent')}
  ${paginatorOf('MobileFeedItem')}
  ${paginatorOf('MobileNotification')}
  ${paginatorOf('MobileDevice')}
  ${paginatorOf('Passkey')}

  input PaymentIntentInput {
    amount: Decimal!
    currency: String!
    "Another customer's email, phone (+E.164) or @handle."
    recipient: String!
    description: String
    "Default PAYMENT_INTENT_TTL_MINUTES (30)."
    expiresInMinutes: Int
  }

  input P2pInput {
    "Email, phone or @handle."
    toUser: String!
    amount: Decimal!
    currency: String!
    note: String
    fromAccount: ID
  }

  extend type Query {
    "The caller's payment intents (as payer), newest first."
    paymentIntents(${PAGE_ARGS}, status: PaymentIntentStatus): PaymentIntentPaginator!
    "A payment intent (its payer, or its payee)."
    paymentIntent(id: ID!): PaymentIntent!
    p2pTransfer(id: ID!): P2pTransfer!
    "The receipt (rcpt_…) of a succeeded intent or completed P2P transfer."
    receipt(id: ID!): MobileReceipt!
    "Transfers, payments and notifications, newest first (default: all types)."
    mobileActivity(${PAGE_ARGS}, types: [MobileFeedType!]): MobileFeedItemPaginator!
    mobileNotifications(${PAGE_ARGS}, unread: Boolean): MobileNotificationPaginator!
    "Addresses per chain and payment-request URIs for an asset."
    receiveDetails(asset: String!, accountId: ID, amount: Decimal, chain: String): ReceiveDetails!
    devices(${PAGE_ARGS}): MobileDevicePaginator!
    mobileProfile: MobileProfile!
    passkeys(${PAGE_ARGS}): PasskeyPaginator!
  }

  extend type Mutation {
    createPaymentIntent(input: PaymentIntentInput!): PaymentIntent!
    "The payer confirms: the money moves once, through the ledger (answers processing)."
    confirmPaymentIntent(id: ID!, accountId: ID): PaymentIntent!
    cancelPaymentIntent(id: ID!, reason: String): PaymentIntent!
    "Send money to another customer, through the transfers workflow."
    sendP2p(input: P2pInput!): P2pTransfer!
    markNotificationRead(id: ID!): MobileNotification!
    registerDevice(platform: DevicePlatform!, pushToken: String!, name: String): MobileDevice!
    "true once removed."
    removeDevice(id: ID!): Boolean!
    "Set the @handle and phone (null clears; an absent argument is left as is)."
    updateMobileProfile(handle: String, phone: String): MobileProfile!
    "true once removed."
    deletePasskey(id: ID!): Boolean!
  }
`;

const TAG = 'Mobile';

const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

export function mobileArea(app: FastifyInstance): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        paymentIntents: async (_: unknown, args: PageArgs & { status?: IntentStatus | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const p = pageOf(args);
          const { items, total } = await listPaymentIntents(c.principal, { status: opt(args.status), limit: p.perPage, offset: p.offset });
          return paginated(items.map((i) => camelize(presentIntent(i, c.userId))), total, p);
        },
        paymentIntent: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return camelize(presentIntent(await getPaymentIntent(c.principal, args.id), c.userId));
        },
        p2pTransfer: async (_: unknown, args: { id: string }, ctx: GqlContext) => camelize(presentP2p(await getP2pTransfer((await as(ctx, { tag: TAG })).principal, args.id))),
        receipt: async (_: unknown, args: { id: string }, ctx: GqlContext) => getReceipt((await as(ctx, { tag: TAG })).principal, args.id),
        mobileActivity: async (_: unknown, args: PageArgs & { types?: FeedType[] | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const p = pageOf(args);
          const { items, total } = await activityFeed(c.principal, { types: args.types?.length ? [...new Set(args.types)] : undefined, limit: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        mobileNotifications: async (_: unknown, args: PageArgs & { unread?: boolean | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          const p = pageOf(args);
          const { items, total } = await listNotifications(c.principal, { unread: opt(args.unread), limit: p.perPage, offset: p.offset });
          return paginated(items, total, p);
        },
        receiveDetails: async (_: unknown, args: { asset: string; accountId?: string | null; amount?: string | null; chain?: string | null }, ctx: GqlContext) =>
          receiveDetails((await as(ctx, { tag: TAG })).principal, { asset: args.asset, account_id: opt(args.accountId), amount: opt(args.amount), chain: opt(args.chain) }),
        devices: async (_: unknown, args: PageArgs, ctx: GqlContext) => paginateList(await listDevices((await as(ctx, { tag: TAG })).principal), args),
        mobileProfile: async (_: unknown, __: unknown, ctx: GqlContext) => getProfile((await as(ctx, { tag: TAG })).userId),
        passkeys: async (_: unknown, args: PageArgs, ctx: GqlContext) => paginateList(await listPasskeys((await as(ctx, { tag: TAG })).principal), args),
      },
      Mutation: {
        createPaymentIntent: async (_: unknown, { input }: { input: { amount: string; currency: string; recipient: string; description?: string | null; expiresInMinutes?: number | null } }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const i = await createPaymentIntent(c.principal, { amount: input.amount, currency: input.currency, recipient: input.recipient, description: opt(input.description), expires_in_minutes: opt(input.expiresInMinutes) });
          return camelize(presentIntent(i, c.userId));
        },
        confirmPaymentIntent: async (_: unknown, args: { id: string; accountId?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return camelize(presentIntent(await confirmPaymentIntent(c.principal, args.id, { account_id: opt(args.accountId) }), c.userId));
        },
        cancelPaymentIntent: async (_: unknown, args: { id: string; reason?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          return camelize(presentIntent(await cancelPaymentIntent(c.principal, args.id, { reason: opt(args.reason) }), c.userId));
        },
        sendP2p: async (
          _: unknown,
          { input }: { input: { toUser: string; amount: string; currency: string; note?: string | null; fromAccount?: string | null } },
          ctx: GqlContext,
        ) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const x = await sendP2p(app.transfers, c.principal, { to_user: input.toUser, amount: input.amount, currency: input.currency, note: opt(input.note), from_account: opt(input.fromAccount) }, mutationRequestKey(ctx));
          return camelize(presentP2p(x));
        },
        markNotificationRead: async (_: unknown, args: { id: string }, ctx: GqlContext) => markNotificationRead((await as(ctx, { permission: 'write', tag: TAG })).principal, args.id),
        registerDevice: async (_: unknown, args: { platform: Device['platform']; pushToken: string; name?: string | null }, ctx: GqlContext) =>
          registerDevice((await as(ctx, { permission: 'write', tag: TAG })).principal, { platform: args.platform, push_token: args.pushToken, name: opt(args.name) }),
        removeDevice: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          await removeDevice((await as(ctx, { permission: 'delete', tag: TAG })).principal, args.id);
          return true;
        },
        updateMobileProfile: async (_: unknown, args: { handle?: string | null; phone?: string | null }, ctx: GqlContext) =>
          // Only the arguments given: an absent one is left as is, an explicit null clears (as REST's PATCH body).
          updateProfile((await as(ctx, { permission: 'write', tag: TAG })).principal, args),
        deletePasskey: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          await deletePasskey((await as(ctx, { permission: 'delete', tag: TAG })).principal, args.id);
          return true;
        },
      },
      MobileReceipt: {
        ledger: (r: Receipt) => ({ entryId: r.entryId, lines: r.ledgerLines }),
      },
      MobileDevice: {
        pushTokenSuffix: (d: Device) => d.tokenSuffix,
      },
    },
  };
}
