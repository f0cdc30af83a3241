/**
 * The schema's foundations: the root types (the areas extend them), the scalars and pagination.
 * Money is `Decimal`: a decimal string in and out ("10.50"), never a float (the domain parses it at
 * the asset's precision and refuses anything else with the REST error codes).
 */
import { GraphQLScalarType, Kind } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { AMOUNT_PATTERN } from '../../domain/money/amount';
import { gqlError } from './errors';
import { PAGINATION_SDL } from './pagination';

const DECIMAL = new RegExp(AMOUNT_PATTERN);

const parseDecimal = (v: unknown): string => {
  if (typeof v !== 'string' || !DECIMAL.test(v)) throw gqlError('INVALID_AMOUNT', 'A Decimal is a string such as "10.50" (never a number)', 422);
  return v;
};

export const DecimalScalar = new GraphQLScalarType({
  name: 'Decimal',
  description: 'A non-negative decimal number as a string, e.g. "10.50": money never travels as a float.',
  serialize: (v) => (typeof v === 'string' ? v : String(v)),
  parseValue: parseDecimal,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw gqlError('INVALID_AMOUNT', 'A Decimal is a string such as "10.50" (never a number)', 422);
    return parseDecimal(ast.value);
  },
});

export const BASE_SDL = /* GraphQL */ `
  "An ISO 8601 instant, e.g. 2026-11-26T12:00:00.000Z."
  scalar DateTime
  "Any JSON value (metadata)."
  scalar JSON
  scalar Decimal

  type Query
  type Mutation

  ${PAGINATION_SDL}
`;

export const BASE_RESOLVERS = { DateTime: DateTimeResolver, JSON: JSONResolver, Decimal: DecimalScalar };
