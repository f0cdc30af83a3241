/** Travel Rule routes: caller → one domain call → the spec's check record. */
import type { FastifyInstance } from 'fastify';
import {
  checkTravelRule,
  getOwnTravelRuleCheck,
  recordTravelRuleTransfer,
  type TravelRuleCheck,
  type TravelRuleCheckRequest,
  type TravelRuleTransferRequest,
} from '../../../domain/regtech/travel-rule';
import { principalOf } from '../../types';
import { checkSchema, getCheckSchema, transfersSchema } from '../../operations/regtech/travel-rule-schemas';

export function presentCheck(c: TravelRuleCheck) {
  return {
    check_id: c.id,
    transfer_id: c.transferId,
    is_compliant: c.isCompliant,
    risk_level: c.riskLevel,
    applicable_jurisdiction: c.jurisdiction,
    applicable_regulations: c.threshold.regulations,
    originator_verified: c.originatorVerified,
    beneficiary_verified: c.beneficiaryVerified,
    threshold_analysis: {
      amount_usd: c.amountUsd,
      exceeds_threshold: c.exceedsThreshold,
      threshold_amount: c.threshold.amountUsd,
      full_identification_required: c.fullIdentificationRequired,
      threshold_currency: c.threshold.currency,
      threshold_in_currency: c.threshold.amount,
      usd_rate: c.usdRate,
      usd_rate_as_of: new Date(c.usdRateAsOf).toISOString(),
      source: c.threshold.source,
      as_of: c.threshold.asOf,
    },
    sanctions_screening: {
      originator_cleared: c.sanctions.originatorCleared,
      beneficiary_cleared: c.sanctions.beneficiaryCleared,
      screening_provider: c.sanctions.provider,
      screened_at: c.sanctions.screenedAt,
      list_version: c.sanctions.listVersion,
    },
    compliance_issues: c.complianceIssues,
    recommendations: c.recommendations,
    checked_at: c.checkedAt.toISOString(),
    valid_until: c.validUntil.toISOString(),
    ivms101: c.ivms101,
  };
}

export default async function travelRuleRoutes(app: FastifyInstance) {
  app.post<{ Body: TravelRuleCheckRequest }>('/api/v1/regtech/travel-rule/check', { schema: checkSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentCheck(await checkTravelRule(principalOf(request), request.body)) }),
  );

  app.post<{ Body: TravelRuleTransferRequest }>('/api/v2/regtech/travel-rule/transfers', { schema: transfersSchema }, async (request, reply) =>
    reply.code(201).send({ data: presentCheck(await recordTravelRuleTransfer(principalOf(request), request.body)) }),
  );

  app.get<{ Params: { id: string } }>('/api/v2/regtech/travel-rule/checks/:id', { schema: getCheckSchema }, async (request) => ({
    data: presentCheck(await getOwnTravelRuleCheck(principalOf(request), request.params.id)),
  }));
}
