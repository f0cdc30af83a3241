/** Wire schemas of the API keys area. */
import type { KeyFormat } from '../../../domain/auth/api-keys';
import { PERMISSIONS, type Permission } from '../../../domain/auth/principal';
import { ENVIRONMENTS, type Environment } from '../../../domain/platform/environment';
import { paginationQuery } from '../../schemas';

export const TAGS = ['API keys'];

export const keySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    environment: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    ip_allowlist: { type: 'array', items: { type: 'string' } },
    expires_at: { type: ['string', 'null'] },
    revoked_at: { type: ['string', 'null'] },
    last_used_at: { type: ['string', 'null'] },
    rotated_from: { type: ['string', 'null'] },
    agent: { type: 'boolean', description: 'Tagged as an agent: its HTTP-native payments are held to an agent budget' },
    status: { type: 'string', enum: ['active', 'expired', 'revoked'] },
    created_at: { type: 'string' },
    key: { type: 'string', description: 'The key value; returned once, at creation or rotation' },
  },
};

export interface CreateBody {
  name: string;
  environment?: Environment;
  permissions?: Permission[];
  ip_allowlist?: string[];
  expires_at?: string;
  format?: KeyFormat;
  agent?: boolean;
}

export const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    environment: { type: 'string', enum: [...ENVIRONMENTS] },
    permissions: { type: 'array', items: { type: 'string', enum: [...PERMISSIONS] }, minItems: 1, uniqueItems: true },
    ip_allowlist: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 50 },
    expires_at: { type: 'string', format: 'date-time' },
    format: { type: 'string', enum: ['sk', 'fak'], default: 'sk' },
    agent: { type: 'boolean', default: false, description: 'Software (an AI agent) spending on your behalf: x402 payments it makes are held to an agent budget (GET /api/v2/x402/spending-limits)' },
  },
};

export const pageQuery = { type: 'object', properties: paginationQuery, additionalProperties: false };

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

export const rotateBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { grace_period_seconds: { type: 'integer', minimum: 0, maximum: 7 * 24 * 3600, default: 0 } },
};
