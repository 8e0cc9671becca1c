import type * as Vitest from 'vitest';

/** The slice of vitest the shared real-backend suites declare and assert with. */
export type SuiteVitest = Pick<typeof Vitest, 'describe' | 'it' | 'expect' | 'beforeAll' | 'afterAll'>;

/**
 * The running vitest's own API. Every vitest worker publishes its module namespace as
 * `globalThis.__vitest_index__`; taking it from there instead of importing 'vitest' keeps vitest
 * out of this package's build and can never pick up a second copy of the runner.
 */
export function runningVitest(): SuiteVitest {
  const v = (globalThis as { __vitest_index__?: Partial<SuiteVitest> }).__vitest_index__;
  if (!v?.describe || !v.it || !v.expect || !v.beforeAll || !v.afterAll) {
    throw new TypeError('the shared real-backend suites must be declared from a vitest test file');
  }
  return { describe: v.describe, it: v.it, expect: v.expect, beforeAll: v.beforeAll, afterAll: v.afterAll };
}
