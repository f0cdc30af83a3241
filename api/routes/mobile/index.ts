/**
 * The mobile app's routes (issue 17, "Mobile payments"), one file per concept, registered in
 * order: passkeys (WebAuthn sign-in and biometric sessions), then payments (intents, P2P, receipts,
 * activity and notifications, receive details, devices, profile).
 */
import type { FastifyInstance } from 'fastify';
import passkeyRoutes from './passkeys';
import mobilePaymentRoutes from './payments';

export default async function mobileRoutes(app: FastifyInstance) {
  await app.register(passkeyRoutes);
  await app.register(mobilePaymentRoutes);
}
