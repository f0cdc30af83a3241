/** Schema pieces the partner route files share. */

/** The partner rows' second credential, declared for OpenAPI and the generated SDKs. */
export const partnerKeyHeader = {
  type: 'object',
  required: ['x-partner-key'],
  properties: { 'x-partner-key': { type: 'string', description: 'The partner key (fpk_…) issued at onboarding' } },
};
