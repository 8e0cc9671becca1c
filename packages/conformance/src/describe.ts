import type { CaseGroup } from './case.js';
import { CaseSkipped } from './failure.js';
import type { ConformanceHarness } from './fixture.js';
import { decide, type OpenCase, openCase, type SelectOptions, selectCases } from './run.js';

/** The slice of a test runner's API the wrapper uses (vitest's by default). */
export interface SuiteApi {
  describe(name: string, fn: () => Promise<void> | void): void;
  it: {
    (name: string, fn: (test?: { skip?(note?: string): void }) => Promise<void>, timeout?: number): void;
    skip(name: string, fn: () => void): void;
  };
  afterEach(fn: () => Promise<void>): void;
}

export interface DescribeOptions extends SelectOptions {
  /** The suite title; defaults to `provider conformance: <type> "<configured name>"`. */
  title?: string;
  /** Where skip notes go; `console.info` by default, so the default reporter shows them. */
  print?: (line: string) => void;
  /** Replaces vitest's describe/it/afterEach (for running the kit under another runner). */
  api?: SuiteApi;
}

const GROUP_TITLES: Record<CaseGroup, string> = {
  create: 'create',
  get: 'get',
  delete: 'delete',
  listByTag: 'listByTag',
  operations: 'every operation',
  checker: 'checker',
};

/**
 * The running vitest's own describe/it/afterEach. Every vitest worker publishes its module
 * namespace as `globalThis.__vitest_index__` (what `import.meta.vitest` reads); taking the API
 * from there instead of importing 'vitest' keeps this module loadable outside a test run (for
 * `runConformance` and the docs) and can never pick up a second copy of vitest.
 */
function runningVitest(): SuiteApi {
  const v = (globalThis as { __vitest_index__?: Partial<SuiteApi> }).__vitest_index__;
  if (!v?.describe || !v.it || !v.afterEach) {
    throw new TypeError(
      'describeProviderConformance must be called from a vitest test file (or given options.api); use runConformance elsewhere',
    );
  }
  return { describe: v.describe, it: v.it, afterEach: v.afterEach };
}

/**
 * Declares the conformance suite for one provider in a vitest file. Cases that do not apply to
 * the provider's profile are declared skipped with the reason in their title and printed once.
 */
export function describeProviderConformance(
  harness: ConformanceHarness,
  options: DescribeOptions = {},
): void {
  const api: SuiteApi = options.api ?? runningVitest();
  const print = options.print ?? ((line: string) => console.info(line));
  const cases = selectCases(options);
  const label = options.title;
  api.describe(label ?? 'provider conformance', async () => {
    // One fixture at collection time, only to read the declarations that decide what applies.
    const probe = await harness({ caseId: 'collect' });
    const decisions = new Map(cases.map((c) => [c.id, decide(c, probe, options)]));
    const who = `${probe.provider.type} "${probe.config.providerName}"`;
    await probe.dispose?.();
    let current: OpenCase | undefined;
    api.afterEach(async () => {
      const open = current;
      current = undefined;
      await open?.close();
    });
    const skipped = cases.flatMap((c) => {
      const d = decisions.get(c.id)!;
      return d === true ? [] : [`${c.id} skipped: ${d}`];
    });
    if (skipped.length > 0)
      print(`[conformance] ${who}: ${skipped.length} cases skipped\n  ${skipped.join('\n  ')}`);
    for (const group of Object.keys(GROUP_TITLES) as CaseGroup[]) {
      const inGroup = cases.filter((c) => c.group === group);
      if (inGroup.length === 0) continue;
      api.describe(`${GROUP_TITLES[group]} (${who})`, () => {
        for (const c of inGroup) {
          const decision = decisions.get(c.id)!;
          const name = `${c.id} ${c.title}`;
          if (decision !== true) {
            api.it.skip(`${name} [skipped: ${decision}]`, () => {});
            continue;
          }
          api.it(
            name,
            async (test) => {
              const fixture = await harness({ caseId: c.id });
              current = openCase(c, fixture);
              try {
                await current.run();
              } catch (err) {
                // A case with nothing to exercise is a skip with its reason, never a pass.
                if (!CaseSkipped.isInstance(err) || !test?.skip) throw err;
                print(`[conformance] ${c.id} skipped: ${err.message}`);
                test.skip(err.message);
                return;
              }
              for (const n of current.session.ctx.notes) print(`[conformance] ${c.id} note: ${n}`);
            },
            // No wall-clock bound on the whole case: the runner fails a case that stops making progress.
            0,
          );
        }
      });
    }
  });
}
