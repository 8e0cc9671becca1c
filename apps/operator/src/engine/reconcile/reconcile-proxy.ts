import { FINALIZER } from '../../api/group.js';
import type { ProxyObject, ProxySpec } from '../../api/proxy.js';
import { ProxySpecError, validateProxySpec } from '../../api/validate.js';
import { DELETE_STEPS } from './delete-steps.js';
import { EXTERNAL_STEPS } from './external-steps.js';
import { invalidSpec, providerMissing, releaseLatch } from './failure-latch.js';
import { instanceSpecHash } from './instance-hash.js';
import { MANAGED_STEPS, type ManagedState } from './managed-steps.js';
import { finishPass, newPassState, type PassState } from './pass-state.js';
import { type PassEnd, runSteps } from './step-outcome.js';
import type { ReconcileContext, ReconcileResult } from './types.js';

/**
 * One level-triggered pass over a Proxy: reads what the provider says, makes at most the calls
 * needed to move one step toward the spec, and returns the status to write, the finalizer change
 * and when to look again. It never writes anything itself, so the same function serves the
 * cluster and a standalone file store.
 *
 * The pass picks a flow (deleting, External, Managed) and runs its steps in order; each step
 * continues with the state or ends the pass with a result, so every exit is a return.
 */
export async function reconcileProxy(proxy: ProxyObject, ctx: ReconcileContext): Promise<ReconcileResult> {
  const hasFinalizer = (proxy.metadata.finalizers ?? []).includes(FINALIZER);
  // Being deleted, and nothing of ours holds it: nothing to do, nothing to write.
  if (proxy.metadata.deletionTimestamp && !hasFinalizer) {
    return { requeue: { type: 'none' }, events: [], outcome: 'ok' };
  }
  const { end, state } = await chooseFlow(newPassState(proxy, ctx), hasFinalizer);
  return finishPass(state, end);
}

/** How a flow ended, with the state its last step ran on (the result is built from both). */
type Ended = { end: PassEnd; state: PassState };

async function chooseFlow(s: PassState, hasFinalizer: boolean): Promise<Ended> {
  if (s.proxy.metadata.deletionTimestamp) return runSteps(s, DELETE_STEPS);
  let spec: ProxySpec;
  try {
    spec = validateProxySpec(s.proxy.spec);
  } catch (err) {
    if (!ProxySpecError.isInstance(err)) throw err;
    return { end: invalidSpec(s, err).end, state: s };
  }
  if (spec.mode === 'External') return runSteps({ ...s, spec, hasFinalizer }, EXTERNAL_STEPS);
  if (!hasFinalizer) {
    // The finalizer goes on before any provider call, so no instance can exist without it.
    if (!s.status.phase) s.status.phase = 'Pending';
    s.status.observedGeneration = s.generation;
    return { end: { requeue: { type: 'after', ms: 0 }, outcome: 'ok', finalizer: 'add' }, state: s };
  }
  return managedFlow(s, spec);
}

/** The latch and the provider come first: the steps after them run only with a handle. */
async function managedFlow(s: PassState, spec: ProxySpec): Promise<Ended> {
  const providerName = spec.provider!;
  const handle = s.ctx.provider(providerName);
  const released = await releaseLatch(s, handle);
  if (released.kind === 'done') return { end: released.end, state: s };
  const r = released.state;
  if (!handle) return { end: providerMissing(r, providerName).end, state: r };
  const managed: ManagedState = { ...r, spec, handle, hash: instanceSpecHash(spec) };
  return runSteps(managed, MANAGED_STEPS);
}
