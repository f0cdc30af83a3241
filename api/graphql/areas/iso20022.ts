/**
 * ISO 20022 over GraphQL (api/routes/iso20022): supported message types, and parse, validate and
 * generate with the XML in and out as a String. Each resolver is one call of the iso20022 module
 * function the REST route calls; its safety checks (size, DTD, depth) apply as on REST. Parse,
 * validate and generate are mutations because REST takes them as POST (the 'write' permission).
 */
import { generateMessage, parseMessage, supportedTypes, validateMessage, type GenerateResult, type ValidationResult } from '../../../iso20022/index';
import { TAGS } from '../../operations/iso20022/schemas';
import { as, type GqlContext } from '../context';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  type Iso20022Issue {
    line: Int!
    column: Int!
    "XPath-like location."
    path: String!
    message: String!
    "xsd or business."
    kind: String!
    "Business rule id (e.g. control-sum, balance-reconciliation), or schema for an XSD violation."
    code: String!
    "Business rule id (the same as code), for kind business."
    rule: String
    "Where the rule comes from: the XSD, the ISO 20022 rule, definition or usage guideline, or 'platform rule: <reason>'."
    source: String!
  }

  type Iso20022Checks {
    xsd: Boolean!
    business: Boolean!
  }

  "The result of validating a message against its XSD and the business rules."
  type Iso20022Validation {
    "True when errors is empty (warnings do not count)."
    valid: Boolean!
    messageType: String!
    version: String!
    namespace: String!
    "A national variant (e.g. .ch.02), checked against the base ISO schema."
    variant: String
    "Schemas the message was checked against: { document, business_application_header }."
    schemas: JSON!
    checks: Iso20022Checks!
    notes: [String!]!
    "Schema violations and error-level business rules; any makes valid false."
    errors: [Iso20022Issue!]!
    "Warning-level business rules (consistency checks real bank messages legitimately break): reported, valid stays true."
    warnings: [Iso20022Issue!]!
  }

  "A generated message, validated before it is returned."
  type Iso20022Message {
    "The XML (a Document, or an Envelope with AppHdr and Document)."
    xml: String!
    messageType: String!
    version: String!
    "The rest of what REST answers with Accept: application/json (message_id, end_to_end_ids, uetrs, …)."
    details: JSON!
  }

  extend type Query {
    "Message types with the versions each operation accepts, the default generation version and the head.001 versions."
    iso20022SupportedTypes: JSON!
  }

  extend type Mutation {
    "Parses an ISO 20022 message into its business content (snake_case JSON, amounts as decimal strings); no schema validation."
    parseIso20022(xml: String!): JSON!
    "Validates a message (and a head.001 AppHdr when present) against the XSD of its namespace and the business rules."
    validateIso20022(xml: String!): Iso20022Validation!
    "Generates a message from JSON: { type, version?, amount, currency, debtor, creditor, business_application_header?, … } as the REST body."
    generateIso20022(input: JSON!): Iso20022Message!
  }
`;

const TAG = TAGS[0];

export const iso20022Area = (): GraphQLArea => ({
  typeDefs,
  resolvers: {
    Query: {
      iso20022SupportedTypes: async (_: unknown, __: unknown, ctx: GqlContext) => {
        await as(ctx, { tag: TAG });
        return supportedTypes();
      },
    },
    Mutation: {
      parseIso20022: async (_: unknown, args: { xml: string }, ctx: GqlContext) => {
        await as(ctx, { permission: 'write', tag: TAG });
        return parseMessage(args.xml);
      },
      validateIso20022: async (_: unknown, args: { xml: string }, ctx: GqlContext) => {
        await as(ctx, { permission: 'write', tag: TAG });
        return validateMessage(args.xml);
      },
      generateIso20022: async (_: unknown, args: { input: unknown }, ctx: GqlContext) => {
        await as(ctx, { permission: 'write', tag: TAG });
        return generateMessage(args.input);
      },
    },
    Iso20022Validation: {
      messageType: (v: ValidationResult) => v.message_type,
    },
    Iso20022Message: {
      messageType: (g: GenerateResult) => g.message_type,
      details: ({ xml: _xml, ...rest }: GenerateResult) => rest,
    },
  },
});
