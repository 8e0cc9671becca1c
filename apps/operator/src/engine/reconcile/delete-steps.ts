import { ErrorKind, isNotFound, ProviderError } from '@egress-proxies/contract';
import { FORCE_DELETE_ANNOTATION } from '../../api/group.js';
import { event, type PassState, rfc3339 } from './pass-state.js';
import { settlePendingCreate } from './pending-create.js';
import { callProvider } from './provider-failure.js';
import { done, next, type Step, type StepOutcome } from './step-outcome.js';

/** A Proxy being deleted that still has the finalizer: its instance goes, then the finalizer. */

/** The force-delete annotation lets the finalizer go without deleting anything. */
export function forceDelete(s: PassState): StepOutcome<PassState> {
  if (s.proxy.metadata.annotations?.[FORCE_DELETE_ANNOTATION] !== 'true') return next(s);
  const id = s.status.providerID;
  event(
    s,
    'Warning',
    'FinalizerForceRemoved',
    `finalizer removed by ${FORCE_DELETE_ANNOTATION}${id ? `; instance ${id} was not deleted (orphan GC collects it)` : ''}`,
  );
  return done({ type: 'none' }, 'deleted', 'remove');
}

/** A create queued or running for this Proxy is stopped (or finished) before anything is deleted. */
export function stopCreateInFlight(s: PassState): StepOutcome<PassState> {
  s.status.phase = 'Deleting';
  const ops = s.ctx.createOps;
  const op = ops?.peek();
  if (!ops || !op || (op.state !== 'queued' && op.state !== 'running')) return next(s);
  const pending = s.status.pendingCreate;
  if (op.state === 'queued' && (!pending || ops.untouched() === pending.startedTime)) {
    // Not started, and no create ran under this marker anywhere: nothing made, so it can go.
    // (One finishing an earlier process's create is what tells what to delete: it stays.)
    ops.cancel('the Proxy is being deleted');
    s.status.message = 'stopping the queued create before deleting';
    return done({ type: 'after', ms: s.cfg.pollIntervalMs }, 'blocked');
  }
  if (op.settle) {
    // Run by this deletion to learn what an interrupted create made: it ends by itself (or at
    // its deadline) and reconciles the key when it settles.
    s.status.message = 'finishing the interrupted create to learn what it made, then deleting that';
    return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
  }
  // A create that hangs must not hold the deletion for as long as its deadline: after a short
  // grace it is aborted. Cut short, it could leave part of an instance behind, so the next
  // passes run it once more (it continues where it stopped, contract 2.1) to learn the ID,
  // and delete that.
  const at = ops.cancelAfter('the Proxy is being deleted', s.cfg.abortGraceMs);
  s.status.message = `waiting for the create in flight to finish (aborted at ${rfc3339(new Date(at ?? s.ctx.now().getTime()))} unless it finishes first), then deleting what it made`;
  return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
}

/**
 * Takes a settled create's result: its instance is the one to delete when the status has none;
 * without either, what a pending create may have made is settled first.
 */
export async function adoptSettledCreate(s: PassState): Promise<StepOutcome<PassState>> {
  // Taken even when the status has an ID: the settled operation is done with either way.
  const made = s.ctx.createOps?.take();
  if (s.status.providerID) return next(s);
  if (made?.state === 'succeeded' && made.id) {
    s.status.providerID = made.id;
    s.status.instanceProvider = made.provider;
    delete s.status.pendingCreate;
    return next(s);
  }
  return settlePendingCreate(s, made);
}

/** Deletes the instance; the finalizer goes only once the provider no longer finds it. */
export async function deleteInstance(s: PassState): Promise<StepOutcome<PassState>> {
  const id = s.status.providerID!;
  const providerName = s.status.instanceProvider ?? s.proxy.spec.provider ?? '';
  const handle = s.ctx.provider(providerName);
  if (!handle) {
    const message = `cannot delete instance ${id}: provider ${JSON.stringify(providerName)} is not configured; set annotation ${FORCE_DELETE_ANNOTATION}=true to remove the finalizer without deleting it`;
    if (s.status.message !== message) event(s, 'Warning', 'DeleteBlocked', message);
    s.status.message = message;
    return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
  }
  try {
    await callProvider(s, handle, 'delete', (o) => handle.provider.delete(id, o));
  } catch (err) {
    const e = ProviderError.isInstance(err) ? err : undefined;
    const message = `delete of instance ${id} failed: ${e ? e.message : String(err)}; the finalizer stays (set annotation ${FORCE_DELETE_ANNOTATION}=true to remove it without deleting)`;
    event(s, 'Warning', 'DeleteFailed', message);
    s.status.message = message;
    const tier = e?.kind === ErrorKind.Transient ? 'transient' : 'quota';
    return done({ type: 'backoff', tier }, e?.kind === ErrorKind.Permanent ? 'permanent' : 'transient');
  }
  // A provider whose delete returns once submitted (gcp, kubernetes) may still fail it later:
  // the finalizer stays until get answers NotFound, and each pass submits the delete again.
  try {
    await callProvider(s, handle, 'get', (o) => handle.provider.get(id, o));
  } catch (err) {
    if (isNotFound(err)) {
      event(s, 'Normal', 'Deleted', `deleted instance ${id}`);
      return done({ type: 'none' }, 'deleted', 'remove');
    }
    const e = ProviderError.isInstance(err) ? err : undefined;
    s.status.message = `delete of instance ${id} accepted; reading it failed: ${e ? e.message : String(err)}`;
    return done({ type: 'backoff', tier: 'transient' }, 'transient');
  }
  s.status.message = `delete of instance ${id} accepted; waiting until the provider no longer finds it`;
  return done({ type: 'after', ms: s.cfg.pollIntervalMs });
}

export const DELETE_STEPS: readonly Step<PassState>[] = [
  forceDelete,
  stopCreateInFlight,
  adoptSettledCreate,
  deleteInstance,
];
