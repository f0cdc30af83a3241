import type { ApiError } from '../../api/errors';
import { fromDomain } from '../../api/plugins/errors';
import { Iso20022Error } from '../../iso20022/errors';

/**
 * The refusal a call of the ISO 20022 module ends in, as REST answers it: the module raises its own
 * coded errors (iso20022/errors.ts), the API maps code to status (api/error-status.ts).
 */
export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof Iso20022Error) return fromDomain(e)!;
    throw e;
  }
  throw new Error('expected an ISO 20022 refusal');
}
