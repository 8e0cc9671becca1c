import type { Outcome, Requeue } from './types.js';

/** How a pass ends: when to look again, how it went, and the finalizer change. */
export interface PassEnd {
  requeue: Requeue;
  outcome: Outcome;
  finalizer?: 'add' | 'remove';
}

/**
 * What a step answers: go on to the next step with this state, or end the pass with this result.
 * Ending early is an ordinary answer, not an exception (as a controller-runtime Reconcile returns
 * a Result): an exception out of a step is a bug.
 */
export type StepOutcome<S> = { kind: 'continue'; state: S } | Done;
export type Done = { kind: 'done'; end: PassEnd };

export type Step<S> = (state: S) => StepOutcome<S> | Promise<StepOutcome<S>>;

export const next = <S>(state: S): StepOutcome<S> => ({ kind: 'continue', state });

export const done = (requeue: Requeue, outcome: Outcome = 'ok', finalizer?: 'add' | 'remove'): Done => ({
  kind: 'done',
  end: { requeue, outcome, ...(finalizer ? { finalizer } : {}) },
});

/**
 * Runs `steps` in order, each on the state the one before continued with, until one is done.
 * Returns its result with the state it ran on (what the pass reports, such as the endpoint,
 * comes from there).
 */
export async function runSteps<S>(state: S, steps: readonly Step<S>[]): Promise<{ end: PassEnd; state: S }> {
  let s = state;
  for (const step of steps) {
    const o = await step(s);
    if (o.kind === 'done') return { end: o.end, state: s };
    s = o.state;
  }
  // Every flow ends with a step that always answers done: reaching here is a bug in the list.
  throw new Error(`reconcile: the last of ${steps.length} steps continued; a pass must end with a result`);
}
