/**
 * A refusal by business logic: a stable code, a message, optionally the body field it is about
 * (JSON pointer) and details. Transports decide how a code is shown (REST: api/error-status.ts).
 */
export class DomainError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly pointer?: string,
    public readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
