/** Wire schemas of the operators area. The user shape is the authentication area's. */
export { userSchema } from '../auth/schemas';

export const bootstrapBody = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
};
