import { createTransferActivities } from './transfers';

/** Every activity the worker runs, keyed by name. */
export function createActivities() {
  return {
    ...createTransferActivities(),
  };
}
