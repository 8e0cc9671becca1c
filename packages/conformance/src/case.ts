import type { CaseContext } from './context.js';
import type { ConformanceFixture } from './fixture.js';

/** The contract operation a case is about; also the section of docs/conformance-list.md. */
export type CaseGroup = 'create' | 'get' | 'delete' | 'listByTag' | 'operations' | 'checker';

/** One numbered conformance case. The list is data, so it can be run without vitest. */
export interface ConformanceCase {
  /** Stable id (`CREATE-01`); never reused for a different check. */
  readonly id: string;
  readonly group: CaseGroup;
  /** One line, shown in test titles after the id. */
  readonly title: string;
  /** What passing proves, for the docs. */
  readonly proves: string;
  /** The profile axis or fixture member that gates the case, for the docs; `always` when none. */
  readonly gate: string;
  /** `true` when the case applies to this fixture, else the reason it is skipped. */
  applies(fixture: ConformanceFixture): true | string;
  /**
   * The case's stall bound: the runner fails it when it makes no progress (no call returns, no
   * line is logged) for this long. One step's bound, not the whole case's.
   */
  readonly timeoutMs?: number;
  /**
   * The case reads the provider's spans: the runner installs the kit's span recorder as the
   * global tracer provider for it (`ctx.spans`), or skips it with the reason it cannot.
   */
  readonly spans?: boolean;
  run(ctx: CaseContext): Promise<void>;
}

export const DEFAULT_CASE_TIMEOUT_MS = 15_000;
