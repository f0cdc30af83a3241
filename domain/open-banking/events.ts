/**
 * The open_banking.* events (outbox, webhooks, notifications). A decoupled SCA asks the customer in
 * their app: `open_banking.sca_requested` becomes a notification pushed to their devices
 * (domain/mobile/notifications.ts). Included in domain/events/catalog.ts.
 */
import type { EventTypeInfo } from '../events/types';

const str = { type: 'string' };

export const OPEN_BANKING_EVENT_CATALOG: readonly EventTypeInfo[] = [
  {
    type: 'open_banking.sca_requested',
    group: 'Open banking',
    description: 'A third party (TPP) asks the customer to approve a consent or a payment in the app (decoupled SCA); approve or deny with POST /api/v1/open-banking/sca/{authorisation_id}.',
    produced: true,
    producer: 'domain/open-banking/authorisations',
    data_schema: {
      type: 'object',
      required: ['authorisation_id', 'tpp_name', 'subject_kind', 'subject_id', 'description', 'expires_at'],
      additionalProperties: false,
      properties: {
        authorisation_id: str,
        tpp_name: str,
        subject_kind: { type: 'string', enum: ['consent', 'payment'] },
        subject_id: str,
        description: str,
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
  },
];
