/**
 * The ISO 20022 module's refusals: a code, a message, the input field it concerns, and further
 * issues (each failed rule of a generated message). No HTTP status: the transports decide that
 * from the code (api/error-status.ts), so this module depends on nothing above it.
 */
export interface Iso20022Issue {
  detail: string;
  meta: Record<string, unknown>;
}

export class Iso20022Error extends Error {
  readonly code: string;
  readonly pointer?: string;
  readonly issues: Iso20022Issue[];

  constructor(code: string, message: string, opts: { pointer?: string; issues?: Iso20022Issue[] } = {}) {
    super(message);
    this.name = 'Iso20022Error';
    this.code = code;
    this.pointer = opts.pointer;
    this.issues = opts.issues ?? [];
  }
}
