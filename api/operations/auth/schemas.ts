/** Wire schemas of the authentication area, and the request checks that are about the wire only. */
import { ENVIRONMENTS } from '../../../domain/platform/environment';
import { ApiError } from '../../errors';

/** A user as the API shows it (presentUser); shared with the operator routes. */
export const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    is_admin: { type: 'boolean' },
    created_at: { type: 'string' },
  },
};

/** The login tokens' fields (login, refresh, and the mobile passkey sign-in). */
export const tokenProps = {
  access_token: { type: 'string' },
  token_type: { type: 'string' },
  expires_in: { type: 'integer' },
  refresh_token: { type: 'string' },
  refresh_expires_in: { type: 'integer' },
  environment: { type: 'string' },
};

// OAuth 2.0 clients read the token at the top level; envelope clients read data.
export const tokenResponse = {
  type: 'object',
  properties: { data: { type: 'object', properties: tokenProps }, ...tokenProps },
};

export const registerBody = {
  type: 'object',
  required: ['name', 'email', 'password', 'password_confirmation'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    email: { type: 'string', format: 'email', maxLength: 254 },
    password: { type: 'string', minLength: 12, maxLength: 1024 },
    password_confirmation: { type: 'string', maxLength: 1024 },
  },
};

export const loginBody = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', maxLength: 254 },
    password: { type: 'string', maxLength: 1024 },
    environment: { type: 'string', enum: [...ENVIRONMENTS], default: 'sandbox' },
  },
};

export const refreshBody = {
  type: 'object',
  required: ['refresh_token'],
  additionalProperties: false,
  properties: { refresh_token: { type: 'string', maxLength: 200 } },
};

/** The confirmation field must repeat the password (a form check: the domain never sees it). */
export function checkPasswordConfirmation(b: { password: string; password_confirmation: string }): void {
  if (b.password !== b.password_confirmation) {
    throw new ApiError(422, 'VALIDATION_ERROR', 'password_confirmation does not match password', {
      source: { pointer: '/password_confirmation' },
    });
  }
}
