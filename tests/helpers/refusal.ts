import { DomainError } from '../../domain/platform/errors';

/** The DomainError a call throws (anything else is rethrown; no throw fails the test). */
export function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

/** The code of the DomainError a promise rejects with (anything else is rethrown; no rejection fails the test). */
export async function refusedWith(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  throw new Error('expected a refusal');
}
