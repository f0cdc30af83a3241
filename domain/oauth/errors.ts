/**
 * Refusals of the OAuth protocol endpoints (token, revoke, introspect), in RFC 6749 §5.2 terms.
 * They are not DomainErrors: these endpoints answer in the RFCs' wire format ({error,
 * error_description}), and the API maps `error` to a status once (api/routes/oauth/protocol.ts).
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type';

export class OAuthError extends Error {
  constructor(
    public readonly error: OAuthErrorCode,
    public readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}
