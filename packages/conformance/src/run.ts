import type { LogLine } from '@egress-proxies/provider-utils';
import { type ConformanceCase, DEFAULT_CASE_TIMEOUT_MS } from './case.js';
import { conformanceCases } from './cases/index.js';
import { type CaseSession, createCaseSession } from './context.js';
import { CaseSkipped, ConformanceFailure, describeError } from './failure.js';
import type { ConformanceFixture, ConformanceHarness } from './fixture.js';
import { type InstalledRecorder, installSpanRecorder } from './span-recorder.js';

export interface SelectOptions {
  /** Run only these case ids. */
  only?: readonly string[];
  /** Case ids the harness declares it does not meet yet, with the reason (shown as a skip). */
  exclude?: Readonly<Record<string, string>>;
}

export interface RunOptions extends SelectOptions {
  /** Overrides every case's own stall bound (ms). */
  timeoutMs?: number;
}

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseOutcome {
  id: string;
  title: string;
  status: CaseStatus;
  /** Why it was skipped, or why it failed. */
  reason?: string;
  error?: unknown;
  notes: readonly string[];
}

/** Why a case does not run for this fixture and these options, or true when it runs. */
export function decide(
  c: ConformanceCase,
  fixture: ConformanceFixture,
  options: SelectOptions = {},
): true | string {
  const excluded = options.exclude?.[c.id];
  if (excluded !== undefined) return `excluded by the harness: ${excluded}`;
  return c.applies(fixture);
}

/** The cases selected by `only`, with unknown ids rejected so a typo cannot silently run nothing. */
export function selectCases(options: SelectOptions = {}): readonly ConformanceCase[] {
  const all = conformanceCases();
  const known = new Set(all.map((c) => c.id));
  for (const id of [...(options.only ?? []), ...Object.keys(options.exclude ?? {})]) {
    if (!known.has(id)) throw new TypeError(`unknown conformance case id ${JSON.stringify(id)}`);
  }
  return options.only ? all.filter((c) => options.only!.includes(c.id)) : all;
}

/**
 * Fails the case when it stands still for `ms` (no call started or settled, no line logged): each
 * step is bounded, not the whole case, so a loaded machine that is slow but moving never fails it.
 */
async function watched<T>(promise: Promise<T>, ms: number, what: string, progress: () => number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        let seen = progress();
        const tick = () => {
          const now = progress();
          if (now === seen) {
            reject(
              new ConformanceFailure(
                `${what} made no progress for ${ms} ms (no call returned, no line logged)`,
              ),
            );
            return;
          }
          seen = now;
          timer = setTimeout(tick, ms);
        };
        timer = setTimeout(tick, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * 2.9: every line a provider writes has a message. A line without one is a blank entry in an
 * operator's log; every case checks all the lines it captured, so whatever path wrote the line
 * (an outcome, a backend call, a skip) is judged by the case that took it.
 */
function assertLinesSaySomething(lines: readonly LogLine[]): void {
  const blank = lines.find((l) => typeof l.msg !== 'string' || l.msg.trim() === '');
  if (blank) {
    throw new ConformanceFailure(
      // Field names only: a value could be anything, a secret included.
      `a log line has no message (2.9: every line says what happened); its fields: ${Object.keys(blank).join(', ')}`,
    );
  }
}

/** A case opened on its fixture: run it, then always clean up. */
export interface OpenCase {
  session: CaseSession;
  fixture: ConformanceFixture;
  run(): Promise<void>;
  /** Deletes what the case made and disposes of the fixture; throws when something could not be deleted. */
  close(): Promise<void>;
}

export function openCase(c: ConformanceCase, fixture: ConformanceFixture, timeoutMs?: number): OpenCase {
  const session = createCaseSession(c.id, fixture);
  let closed = false;
  let recording: InstalledRecorder | undefined;
  return {
    session,
    fixture,
    async run() {
      if (c.spans) {
        const installed = await installSpanRecorder();
        if (typeof installed === 'string') throw new CaseSkipped(`harness limit: ${installed}`);
        recording = installed;
        session.useSpans(installed.recorder);
      }
      await watched(
        c.run(session.ctx),
        timeoutMs ?? c.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS,
        c.id,
        session.progress,
      );
      assertLinesSaySomething(session.ctx.lines);
    },
    async close() {
      if (closed) return;
      closed = true;
      let leftovers: string[] = [];
      try {
        leftovers = await session.cleanup();
      } finally {
        recording?.uninstall();
        await fixture.dispose?.();
      }
      if (leftovers.length > 0) {
        throw new ConformanceFailure(`${c.id} cleanup could not delete everything: ${leftovers.join('; ')}`);
      }
    },
  };
}

/**
 * Runs the selected cases one after another, each on a fresh fixture, and reports each outcome.
 * Never throws for a failing case; the kit's own tests use it to show a broken provider fails.
 */
export async function runConformance(
  harness: ConformanceHarness,
  options: RunOptions = {},
): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = [];
  for (const c of selectCases(options)) {
    const fixture = await harness({ caseId: c.id });
    const decision = decide(c, fixture, options);
    if (decision !== true) {
      await fixture.dispose?.();
      outcomes.push({ id: c.id, title: c.title, status: 'skipped', reason: decision, notes: [] });
      continue;
    }
    const open = openCase(c, fixture, options.timeoutMs);
    let error: unknown;
    try {
      await open.run();
    } catch (err) {
      error = err;
    }
    try {
      await open.close();
    } catch (err) {
      error ??= err;
    }
    if (CaseSkipped.isInstance(error)) {
      outcomes.push({ id: c.id, title: c.title, status: 'skipped', reason: error.message, notes: [] });
      continue;
    }
    outcomes.push({
      id: c.id,
      title: c.title,
      status: error === undefined ? 'passed' : 'failed',
      ...(error === undefined ? {} : { reason: describeError(error), error }),
      notes: [...open.session.ctx.notes],
    });
  }
  return outcomes;
}
