import { instanceName } from '@egress-proxies/contract';
import type { ProxySpec } from '../../api/proxy.js';
import type { CreateOperationSlot } from '../operations/create-operations.js';
import { ConditionType } from './conditions.js';
import { createRequest, startCreate } from './create-request.js';
import { recordCreated } from './instance-record.js';
import { condition, event, type PassState, rfc3339 } from './pass-state.js';
import { providerFailure } from './provider-failure.js';
import { formatWindow } from './readiness-window.js';
import { done, next, type StepOutcome } from './step-outcome.js';
import type { ProviderHandle } from './types.js';

/**
 * A create run as a tracked operation: started by one pass, shown in the status while it runs
 * (with the progress the provider reports), its result taken by the pass after it settled.
 * Continues with the instance ID once it succeeded; ends the pass until then.
 *
 * The operation lives in this process only. `status.pendingCreate` is written by the pass before
 * the one that starts it, so from then on every process knows a create may have made part of an
 * instance: a restarted operator starts the create again (it continues where the last attempt
 * stopped, contract 2.1), and a deletion finishes it before deleting what it made.
 */
export async function trackedCreate(
  s: PassState,
  ops: CreateOperationSlot,
  spec: ProxySpec,
  handle: ProviderHandle,
  hash: string,
): Promise<StepOutcome<string>> {
  const name = instanceName(s.proxy.metadata.namespace, s.proxy.metadata.name);
  const token = `${s.proxy.metadata.uid ?? ''}:${hash}`;
  const settled = ops.take();
  let op = settled ?? ops.peek();
  if (op && (op.token !== token || op.provider !== handle.name)) {
    if (!settled) {
      // The earlier create may finish within a short grace (then its instance is recorded and
      // replaced); one that hangs is aborted then, so the new spec is not held up for as long
      // as the create's deadline. What it made under the same name is continued by the next
      // create (contract 2.1) or replaced.
      const at = ops.cancelAfter(
        `the spec of the Proxy changed while ${name} was being created`,
        s.cfg.abortGraceMs,
      );
      s.status.message = `the spec changed while ${name} was being created: the create for the earlier spec is aborted at ${rfc3339(new Date(at ?? s.ctx.now().getTime()))} unless it finishes first`;
      condition(s, ConditionType.Provisioned, 'False', 'SpecChanged', s.status.message);
      // The operation reconciles the key again when it settles.
      return done({ type: 'after', ms: s.cfg.blockedRetryMs, keepBackoff: true });
    }
    if (op.state === 'succeeded' && op.id) {
      // An instance of the earlier spec exists: recorded with its own hash, so the next pass replaces it.
      recordCreated(s, op.id, op.provider, op.hash);
      return done({ type: 'after', ms: 0 });
    }
    if (op.cancelled) {
      event(
        s,
        'Warning',
        'CreateAborted',
        `the create of ${name} for the earlier spec was aborted after ${formatWindow(s.cfg.abortGraceMs)} (the spec changed); creating it for the new spec`,
      );
    }
    op = undefined;
  }
  if (!op) {
    const pending = s.status.pendingCreate;
    if (pending?.provider !== handle.name || pending.instanceSpecHash !== hash) {
      // The marker is written (and the key requeued at once) before the create starts, so no
      // create can run without a status that says one may have.
      const startedTime = rfc3339(s.ctx.now());
      s.status.pendingCreate = { provider: handle.name, instanceSpecHash: hash, startedTime };
      ops.mark(startedTime);
      s.status.message = `starting the create of ${name} through provider ${handle.name}`;
      condition(s, ConditionType.Provisioned, 'False', 'Creating', s.status.message);
      return done({ type: 'after', ms: 0, keepBackoff: true });
    }
    const req = await createRequest(s, spec);
    if (req.kind === 'done') return req;
    op = startCreate(s, ops, req.state, handle, token, hash);
  }
  if (op.state === 'failed') return providerFailure(s, op.error, `create ${name}`, handle);
  if (op.state === 'succeeded') return next(op.id!);
  const since = (ms: number) => rfc3339(new Date(ms));
  if (op.state === 'queued') {
    s.status.message = `create of ${name} is queued behind ${op.aheadAtQueue} other creates of provider ${handle.name} (since ${since(op.queuedAt)})`;
    condition(s, ConditionType.Provisioned, 'False', 'CreateQueued', s.status.message);
  } else {
    s.status.message = `creating ${name} through provider ${handle.name} since ${since(op.runningSince ?? op.queuedAt)}`;
    if (op.progress) s.status.progress = op.progress;
    condition(
      s,
      ConditionType.Provisioned,
      'False',
      'Creating',
      op.progress ? `${s.status.message}: ${op.progress}` : s.status.message,
    );
  }
  // The operation reconciles the key again when it starts running, when it reports progress
  // and when it settles.
  return done({ type: 'after', ms: s.cfg.blockedRetryMs, keepBackoff: true });
}
