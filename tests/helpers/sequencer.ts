// The order test files start in. Vitest runs the longest first once its cache knows their times,
// but a fresh clone has no cache and it falls back to file size, which put the chaos run (a small
// file, minutes of work) last: one worker then ran it alone while the other sat idle. The files
// below are the slowest of `npm run test:profile`; they start first, the rest follow by vitest's
// own order. Keep the list to files that take more than ~10 s.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_FIRST = [
  'tests/platform/fuzz.test.ts',
  'tests/chaos/chaos.test.ts',
  'tests/transfers/crash-and-replay.test.ts',
  'tests/transfers/concurrency.test.ts',
  'tests/sms/send.test.ts',
  'tests/platform/start.test.ts',
  'tests/partner/sdk.test.ts',
  'tests/partner/sdk-smoke.test.ts',
  'tests/partner/sdk-routes.test.ts',
  'tests/defi/swaps.test.ts',
];

function rank(spec: TestSpecification): number {
  const i = SLOW_FIRST.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
  return i === -1 ? SLOW_FIRST.length : i;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const position = new Map(byVitest.map((f, i) => [f, i]));
    return [...byVitest].sort((a, b) => rank(a) - rank(b) || position.get(a)! - position.get(b)!);
  }
}
