/**
 * Open banking over GraphQL, the customer's side only (docs/open-banking.md; REST:
 * api/routes/open-banking/customer.ts): the consents the customer gave to third parties, one of
 * them, and revoking one (revokedByPsu). The TPP endpoints (Berlin Group NextGenPSD2, identified by
 * the TPP's certificate) and the SCA steps stay REST-only. Answers are the REST presenter's, in camelCase.
 */
import type { FastifyInstance } from 'fastify';
import { revokeConsentByPsu } from '../../../domain/open-banking/consent-lifecycle';
import { customerConsent, customerConsents } from '../../../domain/open-banking/consents';
import { presentConsent } from '../../operations/open-banking/customer';
import { TAGS } from '../../operations/open-banking/schemas';
import { as, type GqlContext } from '../context';
import { PAGE_ARGS, paginateList, paginatorOf, type PageArgs } from '../pagination';
import { camelize } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "A consent the customer gave a third party (TPP) to read their accounts."
  type OpenBankingConsent {
    consentId: ID!
    "The TPP's name (absent in a revocation's answer, as on REST)."
    tppName: String
    "received, valid, rejected, revokedByPsu, expired or terminatedByTpp (expired once past its last day)."
    status: String!
    "The Berlin Group access: accounts, balances, transactions (by IBAN) or availableAccounts / allPsd2."
    access: JSON!
    recurring: Boolean!
    "YYYY-MM-DD: its last day."
    validUntil: String!
    frequencyPerDay: Int!
    authorisedAt: DateTime
    createdAt: DateTime!
  }

  ${paginatorOf('OpenBankingConsent')}

  extend type Query {
    "Consents you gave to third parties, newest first."
    myOpenBankingConsents(${PAGE_ARGS}): OpenBankingConsentPaginator!
    "One consent you gave (another customer's: NOT_FOUND)."
    myOpenBankingConsent(id: ID!): OpenBankingConsent!
  }

  extend type Mutation {
    "Revokes a consent you gave (revokedByPsu): the third party can no longer read."
    revokeOpenBankingConsent(id: ID!): OpenBankingConsent!
  }
`;

const TAG = TAGS[0];
const show = (c: Parameters<typeof presentConsent>[0]) => camelize(presentConsent(c), ['access']);

export function openBankingArea(_app: FastifyInstance): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        myOpenBankingConsents: async (_: unknown, args: PageArgs, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return paginateList((await customerConsents(c.userId, c.environment)).map(show), args);
        },
        myOpenBankingConsent: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return show(await customerConsent(c.userId, c.environment, args.id));
        },
      },
      Mutation: {
        revokeOpenBankingConsent: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'delete', tag: TAG });
          return show(await revokeConsentByPsu(c.userId, c.environment, args.id));
        },
      },
    },
  };
}
