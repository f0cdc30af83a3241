/** OAuth 2.0 authorization server for third-party apps (docs/oauth.md). */
export * from './errors';
export * from './clients';
export * from './authorize';
export * from './tokens';
export { authenticateOAuthAccessToken, isOAuthAccessToken, ACCESS_TOKEN_TTL_SECONDS } from './access-tokens';
export { s256 } from './pkce';
