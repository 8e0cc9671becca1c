import { type Instance, isNotFound } from '@egress-proxies/contract';
import type { ProxySpec } from '../../api/proxy.js';
import { ConditionType } from './conditions.js';
import { createRequest } from './create-request.js';
import { readinessOverdue, stopped } from './instance-lifecycle.js';
import { clearQuota, forgetInstance, recordCreated, replaceInstance } from './instance-record.js';
import { condition, event, isCreateOutcome, type PassState } from './pass-state.js';
import { probeProxy, recordAssignedEgress } from './probe-step.js';
import { callProvider, providerFailure } from './provider-failure.js';
import { removeStale } from './replace-stale.js';
import { done, next, type Step, type StepOutcome } from './step-outcome.js';
import { trackedCreate } from './tracked-create.js';
import type { ProviderHandle } from './types.js';

/** A pass over a Managed Proxy whose provider is configured. */
export interface ManagedState extends PassState {
  readonly spec: ProxySpec;
  readonly handle: ProviderHandle;
  /** The digest of the spec fields the instance is made from. */
  readonly hash: string;
  /** The instance as the provider reported it in this pass. */
  readonly instance?: Instance;
}

/** An instance made from an earlier spec goes before the one of this spec is created. */
export function replaceOutdated(
  s: ManagedState,
): Promise<StepOutcome<ManagedState>> | StepOutcome<ManagedState> {
  if (!s.status.providerID || s.status.instanceSpecHash === s.hash) return next(s);
  return removeStale(s, s.status.instanceProvider ?? s.spec.provider!, 'Replacing');
}

/** Without an instance, creates one; the pass ends once its ID is recorded. */
export async function createInstance(s: ManagedState): Promise<StepOutcome<ManagedState>> {
  if (s.status.providerID) return next(s);
  s.status.phase = 'Provisioning';
  const { handle, spec, hash } = s;
  const ops = s.ctx.createOps;
  let id: string;
  if (ops) {
    const made = await trackedCreate(s, ops, spec, handle, hash);
    if (made.kind === 'done') return made;
    id = made.state;
  } else {
    const req = await createRequest(s, spec);
    if (req.kind === 'done') return req;
    try {
      id = await callProvider(s, handle, 'create', (o) => handle.provider.create(req.state, o));
    } catch (err) {
      return providerFailure(s, err, `create ${req.state.name}`, handle);
    }
  }
  recordCreated(s, id, handle.name, hash);
  // The provider ID is written before anything else happens, so a crash now cannot lose it.
  return done({ type: 'after', ms: 0 });
}

/** Reads the instance from the provider; one that is gone is forgotten, to be created again. */
export async function readInstance(s: ManagedState): Promise<StepOutcome<ManagedState>> {
  const { handle } = s;
  const id = s.status.providerID!;
  let instance: Instance;
  try {
    instance = await callProvider(s, handle, 'get', (o) => handle.provider.get(id, o));
  } catch (err) {
    if (isNotFound(err)) {
      const message = `instance ${id} is gone; creating it again`;
      event(s, 'Warning', 'InstanceGone', message);
      forgetInstance(s);
      s.status.phase = 'Provisioning';
      s.status.message = message;
      condition(s, ConditionType.Provisioned, 'False', 'InstanceGone', message);
      return done({ type: 'after', ms: 0 });
    }
    if (!s.status.ip && isCreateOutcome(err)) {
      // Never seen running, and get answers with a class a read cannot have (a submitted
      // insert that failed on the backend, gcp): the create failed, so the next one is a
      // new create after the class's backoff (or the latch), not another get of the same id.
      forgetInstance(s);
      return providerFailure(s, err, `create of ${id} failed after it was accepted`, handle);
    }
    return providerFailure(s, err, `get ${id}`, handle);
  }
  clearQuota(s);
  return next({ ...s, instance });
}

/** The instance read by `readInstance`; a step placed before it is a bug in the step list. */
function instanceOf(s: ManagedState): Instance {
  if (!s.instance) throw new Error('reconcile: a step that needs the instance ran before readInstance');
  return s.instance;
}

/** Waits for (or replaces) an instance that is stopped, gone or not usable yet. */
export function awaitUsable(s: ManagedState): StepOutcome<ManagedState> {
  const inst = instanceOf(s);
  if (inst.state === 'Stopped') return stopped(s, inst);
  if (inst.state === 'Terminated')
    return replaceInstance(s, 'InstanceTerminated', `instance ${inst.id} is Terminated; replacing it`);
  delete s.status.stoppedSince;
  if (inst.state !== 'Provisioning' && inst.ip) return next(s);
  const waiting =
    inst.state === 'Provisioning' ? 'the instance is starting' : 'the instance runs but has no address yet';
  const overdue = readinessOverdue(s, s.handle, inst, waiting);
  if (overdue) return overdue;
  s.status.phase = 'Provisioning';
  s.status.message = waiting;
  condition(
    s,
    ConditionType.Provisioned,
    'False',
    inst.state === 'Provisioning' ? 'Provisioning' : 'WaitingForAddress',
    waiting,
  );
  return done({ type: 'after', ms: s.cfg.pollIntervalMs });
}

/** Records where the running instance is reached: its address, port, egress and endpoint. */
export function recordAddress(s: ManagedState): StepOutcome<ManagedState> {
  const inst = instanceOf(s);
  const ip = inst.ip!;
  if (s.status.ip !== ip) {
    s.status.ip = ip;
    delete s.status.lastProbeTime;
    delete s.status.egressIP;
  }
  // A provider that runs several proxies on one address allocates their ports: the status
  // says which, so readers of the Proxy (the gateway) need not guess from spec.port.
  if (inst.port !== undefined) s.status.port = inst.port;
  else delete s.status.port;
  recordAssignedEgress(s, inst.egress);
  const at = inst.port !== undefined ? `${ip}:${inst.port}` : ip;
  condition(s, ConditionType.Provisioned, 'True', 'InstanceRunning', `instance ${inst.id} runs at ${at}`);
  return next({ ...s, endpoint: { host: ip, port: inst.port ?? s.spec.port } });
}

/** Running is written before the first probe (a pass of its own), so a watcher sees every step. */
export function announceRunning(s: ManagedState): StepOutcome<ManagedState> {
  if (s.status.phase === 'Running' || s.status.phase === 'Ready') return next(s);
  const inst = instanceOf(s);
  const at = inst.port !== undefined ? `${inst.ip}:${inst.port}` : inst.ip;
  s.status.phase = 'Running';
  s.status.message = `instance ${inst.id} runs at ${at}`;
  event(s, 'Normal', 'Running', `instance ${inst.id} runs at ${at}`);
  return done({ type: 'after', ms: 0 });
}

export const probeInstance: Step<ManagedState> = (s) => {
  const inst = instanceOf(s);
  return probeProxy(s, s.spec, inst.ip!, inst.port ?? s.spec.port);
};

/** A Managed Proxy, from a stale or missing instance to a probed one. Each step may end the pass. */
export const MANAGED_STEPS: readonly Step<ManagedState>[] = [
  replaceOutdated,
  createInstance,
  readInstance,
  awaitUsable,
  recordAddress,
  announceRunning,
  probeInstance,
];
