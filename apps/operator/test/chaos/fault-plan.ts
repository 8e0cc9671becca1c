import { computeErrors } from '@egress-proxies/provider-gcp/test';
import type { ChaosBackends } from './backends.js';
import type { CloudOp } from './fault-cloud.js';

/** The fault kinds the run must hit, each counted where it was served. */
export interface FaultCounts {
  transient: number;
  quota: number;
  permanent: number;
  /** Creates that ran past the pass deadline (served by the backend, measured there). */
  slow: number;
  /** Creates accepted and failed afterwards. */
  async: number;
  /** Creates never answered, ended by the operator's create deadline (as the provider saw the abort). */
  hang: number;
}

const PVE_STEPS = [
  'cloneVm',
  'vmConfig',
  'startVm',
  'vmStatus',
  'clusterResources',
  'destroyVm',
  'uploadIso',
];
const GCE_STEPS = [
  'instances.insert',
  'instances.get',
  'instances.delete',
  'instances.aggregatedList',
] as const;
const CLOUD_OPS: CloudOp[] = ['create', 'get', 'delete', 'list'];

/**
 * Arms faults on the backends, one a tick, drawn from the seeded generator: Transient,
 * QuotaExceeded and Permanent answers at every step of every backend that has them, creates that
 * outlast the pass deadline (slow Proxmox clone tasks, slow fault-cloud creates), creates that
 * fail after they were accepted (Compute's insert operations, the fault cloud's), and fault-cloud
 * creates that never answer (ended by the operator's create deadline, or a kill). A fault
 * armed on a backend waits for the next call of its step, from whichever operator runs then.
 */
export class FaultPlan {
  #slowUntil = 0;

  constructor(
    private readonly b: ChaosBackends,
    private readonly random: () => number,
    /** How long a slow create takes: past the operators' pass deadline. */
    private readonly slowMs: number,
  ) {}

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  /** Arms one fault. */
  tick(): void {
    const r = this.random();
    const backend = this.#pick(['pve', 'gce', 'fault'] as const);
    if (backend === 'pve') this.#pve(r);
    else if (backend === 'gce') this.#gce(r);
    else this.#cloud(r);
    // A slow window on Proxmox ends by itself: clones started in it take slowMs.
    if (this.#slowUntil && Date.now() > this.#slowUntil) {
      this.#slowUntil = 0;
      this.b.pve.fake.taskMs.qmclone = 300;
    }
  }

  #pve(r: number): void {
    const fake = this.b.pve.fake;
    if (r < 0.5)
      fake.failStep(this.#pick(PVE_STEPS), 1, this.#pick(['busy', 'unreachable', 'internal'] as const));
    else if (r < 0.7)
      fake.inject({
        method: 'POST',
        path: /\/clone$/,
        status: 403,
        text: 'Permission check failed (/vms/9000, VM.Clone)',
        times: 1,
      });
    else {
      fake.taskMs.qmclone = this.slowMs;
      this.#slowUntil = Date.now() + 3_000;
    }
  }

  #gce(r: number): void {
    const fake = this.b.gce;
    const step = this.#pick(GCE_STEPS);
    if (r < 0.35)
      fake.failNext(
        step,
        1,
        this.random() < 0.5 ? { kind: 'reset' } : { kind: 'error', error: computeErrors.backendError() },
      );
    else if (r < 0.55)
      fake.failNext('instances.insert', 1, { kind: 'error', error: computeErrors.rateLimited() });
    else if (r < 0.65)
      fake.failNext('instances.insert', 1, {
        kind: 'error',
        error: computeErrors.badRequest('Invalid value for field resource.machineType'),
      });
    else if (r < 0.85)
      fake.failNextInsertAsync({
        code: 'ZONE_RESOURCE_POOL_EXHAUSTED',
        message: 'The zone does not have enough resources',
      });
    else
      fake.failNextInsertAsync({
        code: 'RESOURCE_NOT_FOUND',
        message: "The resource 'projects/x/global/images/y' was not found",
      });
  }

  #cloud(r: number): void {
    const cloud = this.b.cloud;
    if (r < 0.4) cloud.arm(this.#pick(CLOUD_OPS), { kind: 'error', class: 'Transient' });
    else if (r < 0.55)
      cloud.arm(this.#pick(['create', 'get'] as const), { kind: 'error', class: 'QuotaExceeded' });
    else if (r < 0.65) cloud.arm('create', { kind: 'error', class: 'Permanent' });
    else if (r < 0.8)
      cloud.arm('create', { kind: 'async', class: this.random() < 0.5 ? 'QuotaExceeded' : 'Permanent' });
    else if (r < 0.92) cloud.arm('create', { kind: 'slow', ms: this.slowMs });
    else cloud.arm('create', { kind: 'hang' });
  }

  /** No new faults; those armed and not served yet are dropped; clones are fast again. */
  calm(): void {
    this.b.pve.fake.resetControls();
    this.b.pve.fake.taskMs.qmclone = 300;
    this.b.gce.reset();
    this.b.cloud.disarm();
  }

  /** What each backend served, by kind. */
  counts(passDeadlineMs: number): FaultCounts {
    const pve = this.b.pve.fake;
    const gce = this.b.gce.injected;
    const cloud = this.b.cloud.served;
    const n = (k: string) => cloud[k] ?? 0;
    const slowClones = [...pve.tasks.values()].filter(
      (t) =>
        t.type === 'qmclone' && t.endtime !== undefined && (t.endtime - t.starttime) * 1000 >= passDeadlineMs,
    ).length;
    return {
      transient:
        pve.injected.filter((i) => ['busy', 'unreachable', 'internal'].includes(i.kind)).length +
        gce.filter((i) => i.kind === 'reset' || i.kind.startsWith('5')).length +
        n('error:Transient'),
      quota:
        gce.filter((i) => i.kind === '429' || i.kind === 'async:ZONE_RESOURCE_POOL_EXHAUSTED').length +
        n('error:QuotaExceeded') +
        n('async:QuotaExceeded'),
      permanent:
        pve.injected.filter((i) => i.kind === 'status:403').length +
        gce.filter((i) => i.kind === '400' || i.kind === 'async:RESOURCE_NOT_FOUND').length +
        n('error:Permanent') +
        n('async:Permanent'),
      slow: slowClones + this.b.cloud.slowCompleted,
      async:
        gce.filter((i) => i.kind.startsWith('async:')).length +
        n('async:QuotaExceeded') +
        n('async:Permanent'),
      hang: this.b.cloud.creates.filter((c) => c.outcome === 'hang' && c.cause === 'deadline').length,
    };
  }
}
