/**
 * The regulatory technology routes (spec "Regulatory technology"), one file per framework,
 * registered in order: sanctions, Travel Rule, MiFID II reports, MiCA, compliance holds, status.
 */
import type { FastifyInstance } from 'fastify';
import sanctionsRoutes from './sanctions';
import travelRuleRoutes from './travel-rule';
import regtechStatusRoutes from './status';
import micaRoutes from './mica';
import mifidRoutes from './mifid';
import holdRoutes from './holds';

export default async function regtechRoutes(app: FastifyInstance) {
  await app.register(sanctionsRoutes);
  await app.register(travelRuleRoutes);
  await app.register(mifidRoutes);
  await app.register(micaRoutes);
  await app.register(holdRoutes);
  await app.register(regtechStatusRoutes);
}
