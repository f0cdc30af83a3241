/**
 * Wire shapes of the authentication area. Login and refresh failures are answered here because
 * their HTTP form is part of the protocol: 401 for bad credentials, 429 with Retry-After when
 * throttled (a DomainError carries no headers).
 */
import type { LoginResult } from '../../../domain/auth/users';
import { toPublicUser } from '../../../domain/auth/users';
import { ApiError } from '../../errors';

export const presentUser = toPublicUser;

/** Tokens both at the top level (OAuth 2.0 clients) and in `data` (envelope clients). */
export const presentTokens = <T extends object>(tokens: T) => ({ data: tokens, ...tokens });

/** A refused login as the API answers it. */
export function loginRefusal(result: Extract<LoginResult, { ok: false }>): ApiError {
  if (result.reason === 'locked') {
    return new ApiError(429, 'TOO_MANY_LOGIN_ATTEMPTS', 'Too many failed logins; try again later', {
      headers: { 'retry-after': String(result.retryAfter ?? 60) },
    });
  }
  return new ApiError(401, 'INVALID_CREDENTIALS', 'Email or password is incorrect');
}

export const invalidRefreshToken = () => new ApiError(401, 'INVALID_REFRESH_TOKEN', 'The refresh token is invalid, expired or already used');
