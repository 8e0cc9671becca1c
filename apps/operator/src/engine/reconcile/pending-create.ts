import { ProviderError } from '@egress-proxies/contract';
import { FORCE_DELETE_ANNOTATION } from '../../api/group.js';
import { ProxySpecError, validateProxySpec } from '../../api/validate.js';
import type { CreateOperationView } from '../operations/create-operations.js';
import { createRequest, startCreate } from './create-request.js';
import { event, isCreateOutcome, type PassState } from './pass-state.js';
import { type Done, done } from './step-outcome.js';

/**
 * A Proxy being deleted without an instance ID: when `status.pendingCreate` says a create was
 * started (by this process or one before it) and may have made part of an instance, that create
 * is run to its end to learn the ID, and the next pass deletes it. Only a create that answered
 * Permanent or QuotaExceeded (nothing of ours was made), or a marker this process wrote with no
 * create run since, lets the finalizer go at once. Always ends the pass.
 */
export async function settlePendingCreate(
  s: PassState,
  made: CreateOperationView | undefined,
): Promise<Done> {
  const ops = s.ctx.createOps;
  const pending = s.status.pendingCreate;
  const release = () => {
    delete s.status.pendingCreate;
    ops?.forget();
    return done({ type: 'none' }, 'deleted', 'remove');
  };
  if (!pending || !ops || ops.untouched() === pending.startedTime) return release();
  const ran = made?.state === 'failed' && made.runningSince !== undefined;
  if (ran && isCreateOutcome(made.error)) return release();
  const handle = s.ctx.provider(pending.provider);
  if (!handle) {
    const message = `cannot finish the create started through provider ${JSON.stringify(pending.provider)} (not configured) to delete what it made; set annotation ${FORCE_DELETE_ANNOTATION}=true to remove the finalizer without it`;
    if (s.status.message !== message) event(s, 'Warning', 'DeleteBlocked', message);
    s.status.message = message;
    return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
  }
  if (ran) {
    const e = ProviderError.isInstance(made.error)
      ? made.error.message
      : made.error instanceof Error
        ? made.error.message
        : String(made.error);
    s.status.message = made.cancelled
      ? `the create in flight was aborted (${e}); running it once more to learn what it made, then deleting that`
      : `finishing the interrupted create before deleting failed: ${e}; retrying`;
    return done({ type: 'backoff', tier: 'transient' }, 'transient');
  }
  let spec: ReturnType<typeof validateProxySpec>;
  try {
    spec = validateProxySpec(s.proxy.spec);
  } catch (err) {
    if (!ProxySpecError.isInstance(err)) throw err;
    // No create was possible from this spec, so nothing was made by one.
    return release();
  }
  const req = await createRequest(s, spec, { cloudInitOptional: true });
  // With the cloud-init optional the request is always made; kept total for the type.
  if (req.kind === 'done') return req;
  const token = `${s.proxy.metadata.uid ?? ''}:${pending.instanceSpecHash}`;
  startCreate(s, ops, req.state, handle, token, pending.instanceSpecHash, true);
  s.status.message = `finishing the interrupted create of ${req.state.name} through provider ${handle.name}, then deleting what it made`;
  return done({ type: 'after', ms: s.cfg.blockedRetryMs }, 'blocked');
}
