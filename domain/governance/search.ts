/**
 * Search attributes of a proposal workflow, shared by the domain (which starts operator
 * proposals' workflows) and the monthly workflow (which starts polls as children). Workflow-safe:
 * imports only the attribute keys (@temporalio/common).
 *
 * A proposal has no account or amount; it reuses the platform's keys: OperationId = proposal id,
 * AssetCode = basket code, Environment, UserId = creator ('system' for monthly polls), and
 * BusinessStatus, which the workflow upserts as the proposal moves.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { SA } from '../temporal/search-attributes';

export interface ProposalWorkflowSubject {
  proposalId: string;
  basketCode: string;
  environment: string;
  createdBy: string | null;
  status: string;
}

export function proposalSearchAttributes(s: ProposalWorkflowSubject): SearchAttributePair[] {
  return [
    { key: SA.operationId, value: s.proposalId },
    { key: SA.assetCode, value: s.basketCode },
    { key: SA.businessStatus, value: s.status },
    { key: SA.environment, value: s.environment },
    { key: SA.userId, value: s.createdBy ?? 'system' },
  ] as SearchAttributePair[];
}
