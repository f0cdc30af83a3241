/**
 * GraphQL errors carry the REST error's code (docs/graphql.md "Errors"): a domain refusal, a
 * ledger or amount error or an ApiError thrown in a resolver becomes `{ message, path, locations,
 * extensions: { code, status, pointer? } }` with the same code and HTTP status REST would answer
 * (api/error-status.ts through api/plugins/errors.ts fromDomain). Anything else is INTERNAL_ERROR
 * with no detail (logged).
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ApiError } from '../errors';
import { fromDomain } from '../plugins/errors';

export interface GqlErrorExtensions {
  code: string;
  status: number;
  pointer?: string;
}

/** An error for the GraphQL layer's own refusals (limits, pagination, subscription rules). */
export function gqlError(code: string, message: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, status } });
}

function extensionsOf(err: unknown): (GqlErrorExtensions & { message: string }) | null {
  const api = fromDomain(err) ?? (err instanceof ApiError ? err : undefined);
  if (api) {
    const pointer = api.toErrorObjects()[0]?.source?.pointer;
    return { code: api.code, status: api.status, message: api.message, ...(pointer ? { pointer } : {}) };
  }
  return null;
}

/** One error as the response shows it; `log` receives what must not reach the client. */
export function formatError(err: GraphQLError, log?: (e: unknown) => void): GraphQLFormattedError {
  const base = { ...(err.locations ? { locations: err.locations } : {}), ...(err.path ? { path: err.path } : {}) };
  const ours = err.extensions?.code ? null : extensionsOf(err.originalError ?? err);
  if (ours) {
    const { message, ...extensions } = ours;
    return { message, ...base, extensions: { ...extensions } };
  }
  if (err.extensions?.code) return { message: err.message, ...base, extensions: err.extensions };
  if (!err.originalError || err.originalError instanceof GraphQLError) {
    // The document itself: syntax or validation (GraphQL over HTTP: the request is bad).
    return { message: err.message, ...base, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', status: 400 } };
  }
  log?.(err.originalError);
  return { message: 'An unexpected error occurred', ...base, extensions: { code: 'INTERNAL_ERROR', status: 500 } };
}
