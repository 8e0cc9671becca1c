// Test-only helpers for unit tests of single reconcile steps: a pass state over a Proxy in memory
// with the reference provider, and the assertion that a step ended the pass.
import type { ProxyObject } from '../../src/api/proxy.js';
import {
  CreateOperations,
  type CreateOperationsOptions,
} from '../../src/engine/operations/create-operations.js';
import { newPassState, type PassState } from '../../src/engine/reconcile/pass-state.js';
import type { PassEnd, StepOutcome } from '../../src/engine/reconcile/step-outcome.js';
import type { ProviderHandle, ReconcileContext } from '../../src/engine/reconcile/types.js';
import { Driver, newProxy, referenceHandle } from './reconcile-fixture.js';

/** A fresh pass state over `proxy` with `handles` configured; `ctx` overrides the context. */
export function passState(
  o: { proxy?: ProxyObject; handles?: ProviderHandle[]; ctx?: Partial<ReconcileContext> } = {},
): PassState {
  const proxy = o.proxy ?? newProxy();
  const d = new Driver(proxy, o.handles ?? [referenceHandle().handle]);
  return newPassState(proxy, { ...d.context(), ...o.ctx });
}

/** The end of the pass a step answered; fails the test when the step continued instead. */
export function ended(o: StepOutcome<unknown>): PassEnd {
  if (o.kind !== 'done') throw new Error(`the step continued; expected it to end the pass`);
  return o.end;
}

/** The state (or value) a step continued with; fails the test when it ended the pass instead. */
export function continued<S>(o: StepOutcome<S>): S {
  if (o.kind !== 'continue')
    throw new Error(`the step ended the pass (${JSON.stringify(o.end)}); expected it to continue`);
  return o.state;
}

const live = new Set<CreateOperations>();

/**
 * Real create operations with the slot of the fixture's Proxy, and `changed()`: a promise for the
 * next time an operation starts running or settles (no clock involved). Stop them with
 * `stopCreateOps` after each test.
 */
export function createOps(opts: Omit<CreateOperationsOptions, 'notify'> = {}) {
  const waiters: (() => void)[] = [];
  const ops = new CreateOperations({
    ...opts,
    notify: () => {
      for (const w of waiters.splice(0)) w();
    },
  });
  live.add(ops);
  const changed = () => new Promise<void>((r) => waiters.push(r));
  return { ops, slot: ops.slot('ns1/p1'), changed };
}

export async function stopCreateOps(): Promise<void> {
  for (const ops of live) await ops.stop(0);
  live.clear();
}
