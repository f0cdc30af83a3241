/**
 * What a caller does about their own identity: sign up, look themselves up, end their login
 * session, become the first operator. The REST routes (api/routes/auth, api/routes/operators)
 * call these; credentials checks and sessions stay in ./users and ./sessions.
 */
import { DomainError } from '../platform/errors';
import { redeemBootstrapToken } from './operators';
import type { Principal } from './principal';
import { revokeSession } from './sessions';
import { getUser, registerUser } from './users';

export type User = NonNullable<Awaited<ReturnType<typeof getUser>>>;

/** Creates a user; an email already registered (in any spelling of it) is EMAIL_TAKEN. */
export async function signUp(name: string, email: string, password: string) {
  const user = await registerUser(name, email, password);
  if (!user) throw new DomainError('EMAIL_TAKEN', 'An account with this email already exists', '/email');
  return user;
}

/** The caller's user record (NOT_FOUND if it was removed since the credential was issued). */
export async function currentUser(p: Principal): Promise<User> {
  const user = await getUser(p.userId);
  if (!user) throw new DomainError('NOT_FOUND', 'User not found');
  return user;
}

/** Ends the caller's login session; an API key is not a session (revoke keys instead): NOT_A_LOGIN_SESSION. */
export async function endLoginSession(p: Principal): Promise<void> {
  if (p.kind !== 'session') {
    throw new DomainError('NOT_A_LOGIN_SESSION', 'Logout ends a login session; revoke API keys under /api/v2/api-keys');
  }
  await revokeSession(p.credentialId);
}

/** Redeems the one-time bootstrap token: the caller becomes the first platform operator. */
export async function becomeFirstOperator(p: Principal, token: string): Promise<User> {
  const { userId } = await redeemBootstrapToken(p, token);
  const user = await getUser(userId);
  if (!user) throw new DomainError('NOT_FOUND', 'User not found');
  return user;
}
