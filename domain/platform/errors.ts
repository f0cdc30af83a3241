/**
 * A refusal by business logic that the API shows as a 4xx: HTTP status, stable code, message,
 * and optionally the body field it is about (JSON pointer).
 */
export class DomainError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly pointer?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
