import { readFileSync } from 'node:fs';
import type {
  BackendControl,
  BackendInstanceView,
  ConformanceFixture,
  ConformanceHarness,
  FaultKind,
  SeedSpec,
  StateRow,
  StepGate,
} from '@egress-proxies/conformance';
import { InstanceState, MANAGED_LABEL, MANAGED_VALUE } from '@egress-proxies/contract';
import { formatProviderId } from '../id.js';
import { formatDescription, parseDescription } from '../marks.js';
import { seedFileName, seedOwner } from '../seed.js';
import type { FakePve } from './fake-pve.js';
import type { FakeVm } from './fake-state.js';
import { startFakeSetup } from './setup.js';
import { type FakeTls, mintFakeTls } from './tls.js';

const PROVIDER_NAME = 'proxmox-conformance';
const NODES = ['pve1', 'pve2'];

/**
 * The backend-native states the fake can put a VM in, with what Get must report (seed 000 §8's
 * table). `stopped` comes first among the Stopped rows: the kit seeds it as the "quiet" state.
 */
export const PROXMOX_STATE_TABLE: readonly StateRow[] = [
  { state: 'running', address: true, expected: InstanceState.Running },
  { state: 'running', address: false, expected: InstanceState.Provisioning },
  { state: 'agent-down', address: false, expected: InstanceState.Provisioning },
  { state: 'prelaunch', address: false, expected: InstanceState.Provisioning },
  { state: 'stopped', address: false, expected: InstanceState.Stopped },
  { state: 'agent-unconfigured', address: true, expected: InstanceState.Stopped },
  { state: 'paused', address: false, expected: InstanceState.Stopped },
  { state: 'io-error', address: false, expected: InstanceState.Stopped },
  { state: 'hibernated', address: false, expected: InstanceState.Stopped },
];

const lanOnlyLoopback = [
  {
    name: 'lo',
    'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' as const, prefix: 8 }],
  },
];

function nativeState(vm: FakeVm): string {
  if (vm.config.lock === 'suspended') return 'hibernated';
  if (!vm.running) return 'stopped';
  if (vm.qmp !== 'running') return vm.qmp;
  if (vm.config.agent === undefined) return 'agent-unconfigured';
  return vm.agent === 'down' ? 'agent-down' : 'running';
}

class Gate implements StepGate {
  #released = false;
  #held = 0;
  #reach!: () => void;
  readonly reached = new Promise<void>((r) => {
    this.#reach = r;
  });
  readonly #waiters = new Set<() => void>();
  get held(): number {
    return this.#held;
  }
  release(): void {
    this.#released = true;
    for (const w of this.#waiters) w();
    this.#waiters.clear();
  }
  wait(signal: AbortSignal): Promise<void> {
    if (this.#released) return Promise.resolve();
    this.#held++;
    this.#reach();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#held--;
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#held--;
        this.#waiters.delete(done);
        reject(new Error('client went away'));
      };
      this.#waiters.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The kit's control interface over one fake PVE. */
export function fakeControl(fake: FakePve): BackendControl {
  const gates: Gate[] = [];
  let nextSeed = 190_000;
  const named = (name: string, zone?: string) =>
    [...fake.vms.values()].find((v) => v.config.name === name && (!zone || v.node === zone));
  const must = (name: string, zone?: string) => {
    const vm = named(name, zone);
    if (!vm) throw new Error(`fake PVE: no VM named ${name}`);
    return vm;
  };
  return {
    failNext(step: string, count: number, fault: FaultKind) {
      fake.failStep(step, count, fault);
    },
    // The HTTP status PVE answers each fault with (595 is pveproxy's "no route"; the rest are 500s).
    backendCode: (_step: string, fault: string) => (fault === 'unreachable' ? 595 : 500),
    block(step: string) {
      const g = new Gate();
      gates.push(g);
      fake.blockStep(step, (signal) => g.wait(signal));
      return g;
    },
    setUnreachable(on: boolean, zone?: string) {
      if (zone) fake.setNodeOnline(zone, !on);
      else fake.setDown(on);
    },
    setBusy(on: boolean, zone?: string) {
      fake.setBusy(on, zone ?? '*');
    },
    breakTarget(target: string, condition: string) {
      if (condition === 'unreachable') fake.setNodeOnline(target, false);
      else if (condition === 'storage-missing') {
        fake.inject({
          method: 'GET',
          path: `/nodes/${target}/storage/local/status`,
          status: 400,
          text: 'Parameter verification failed.',
        });
      } else throw new Error(`fake PVE: unknown condition ${condition}`);
    },
    seed(spec: SeedSpec) {
      const vmid = nextSeed++;
      const node = spec.zone ?? NODES[0]!;
      const config: Record<string, string | number> = {
        name: spec.name,
        cores: 1,
        memory: '512',
        agent: '1',
        scsi0: `local-lvm:vm-${vmid}-disk-0,size=10G`,
        net0: 'virtio=BC:24:11:00:AA:01,bridge=vmbr0',
      };
      if (spec.mark !== 'none') {
        config.tags = 'proxy_operator';
        const createdAt = spec.mark.createdAt ?? new Date();
        const valid = !Number.isNaN(createdAt.getTime());
        let description = formatDescription({
          uid: spec.mark.uid,
          createdAt: valid ? createdAt : new Date(0),
          installation: spec.mark.installation,
        });
        // The mark variants: the managed line switched off, a creation time that is no time.
        if (spec.mark.managed === false)
          description = description.replace(`${MANAGED_LABEL}=${MANAGED_VALUE}`, `${MANAGED_LABEL}=false`);
        if (!valid) description = description.replace(new Date(0).toISOString(), 'the day before yesterday');
        config.description = description;
      }
      const vm = fake.addVm(vmid, node, config, { running: true, qmp: 'running' });
      vm.agent = spec.address === false ? lanOnlyLoopback : fake.agentOnStart(vmid);
      switch (spec.state ?? 'running') {
        case 'running':
          break;
        case 'agent-down':
          vm.agent = 'down';
          break;
        case 'agent-unconfigured':
          delete vm.config.agent;
          break;
        case 'prelaunch':
        case 'paused':
        case 'io-error':
          vm.qmp = spec.state!;
          break;
        case 'stopped':
          vm.running = false;
          vm.qmp = 'stopped';
          break;
        case 'hibernated':
          fake.hibernate(vmid);
          break;
        default:
          throw new Error(`fake PVE: unknown state ${spec.state}`);
      }
      return formatProviderId(vmid, spec.name);
    },
    corrupt(name: string, zone?: string) {
      const vm = must(name, zone);
      fake.inject({
        method: 'GET',
        path: `/nodes/${vm.node}/qemu/${vm.vmid}/config`,
        status: 500,
        text: "unable to parse value of 'description'",
      });
    },
    instances(): BackendInstanceView[] {
      return [...fake.vms.values()]
        .filter((v) => typeof v.config.name === 'string' && Number(v.config.template) !== 1)
        .map((v) => {
          const mark = parseDescription(
            typeof v.config.description === 'string' ? v.config.description : undefined,
          );
          const view: BackendInstanceView = {
            name: String(v.config.name),
            zone: v.node,
            id: formatProviderId(v.vmid, String(v.config.name)),
            state: nativeState(v),
            running: v.running && v.qmp === 'running',
            marked: mark.managed,
          };
          if (mark.managed) view.uid = mark.uid;
          return view;
        });
    },
    resources() {
      return fake.nodes.flatMap((node) =>
        [...fake.volumes(node, 'local').keys()].flatMap((volname) => {
          const instance = seedOwner(volname);
          return instance ? [{ kind: 'seed-iso', name: volname, instance, zone: node }] : [];
        }),
      );
    },
    calls() {
      return fake.calls.map((c) => {
        const m = /^\/nodes\/([^/]+)(?:\/qemu\/(\d+))?/.exec(c.path);
        const vm = m?.[2] ? fake.vms.get(Number(m[2])) : undefined;
        const out: { step: string; zone?: string; instance?: string } = { step: c.step };
        if (m?.[1]) out.zone = m[1];
        if (typeof vm?.config.name === 'string') out.instance = vm.config.name;
        return out;
      });
    },
    clearCalls() {
      fake.calls.length = 0;
    },
    inFlight(step?: string) {
      return fake.inFlight(step);
    },
    removeInstance(name: string, zone?: string) {
      fake.vms.delete(must(name, zone).vmid);
    },
    stopInstance(name: string, zone?: string) {
      const vm = must(name, zone);
      vm.running = false;
      vm.qmp = 'stopped';
    },
    removeResources(name: string, zone?: string) {
      for (const node of zone ? [zone] : fake.nodes)
        fake.volumes(node, 'local').delete(`iso/${seedFileName(name)}`);
    },
    setAddress(name: string, present: boolean, zone?: string) {
      const vm = must(name, zone);
      vm.agent = present ? fake.agentOnStart(vm.vmid) : lanOnlyLoopback;
    },
    steps: { address: 'agentInterfaces', stop: 'stopVm', remove: 'destroyVm', probe: 'version' },
    markVariants: ['managed-false', 'unparsable-created-at'],
    // A guest that halts at once: the start task succeeds, the VM is stopped again.
    startFaults: ['powers-off'],
    failStart(name: string) {
      fake.failStarts.add(name);
    },
    reset() {
      fake.resetControls();
      for (const g of gates.splice(0)) g.release();
    },
  };
}

/**
 * Cases this provider knowingly answers differently, with the reason; pass them to
 * `describeProviderConformance(harness, { exclude: PROXMOX_CONFORMANCE_EXCLUDES })`.
 */
export const PROXMOX_CONFORMANCE_EXCLUDES: Readonly<Record<string, string>> = {
  'GET-06':
    "the spec's state table makes an agent answer other than its three known ones Transient " +
    "(and the agent's 'does not exist' NotFound), where GET-06 expects Provisioning",
  'CREATE-15':
    "harness limit: the fake's corrupt() fails the config read (500, rightly Transient) instead of " +
    'garbling the description in place, so a present-but-malformed mark cannot be planted',
};

/**
 * The conformance harness: every call makes a fresh fake PVE (two nodes, one template) and a
 * provider over it through the real HTTP client. The throwaway CA is minted once per harness.
 */
export function proxmoxConformanceHarness(): ConformanceHarness {
  let tls: FakeTls | undefined;
  return async (): Promise<ConformanceFixture> => {
    tls ??= mintFakeTls();
    const setup = await startFakeSetup({ nodes: NODES, tls });
    const token = readFileSync(setup.tokenFile, 'utf8').trim();
    const provider = setup.provider(
      {},
      {
        name: PROVIDER_NAME,
        budgets: {
          pollMs: 5,
          taskMs: 3_000,
          cloneMs: 3_000,
          runningMs: 3_000,
          lockWaitMs: 2_000,
          checkMs: 3_000,
        },
      },
    );
    return {
      provider,
      checker: provider,
      backend: fakeControl(setup.fake),
      profile: provider.profile,
      config: {
        providerName: PROVIDER_NAME,
        placement: { zone: NODES[0], machineType: 'small', image: 'debian' },
        validatedPlacement: ['zone', 'machineType', 'image'],
        // Two nodes: none is the default (one machine type and one template are).
        requiredPlacement: ['zone'],
        zones: NODES,
        secrets: [token.slice(token.lastIndexOf('=') + 1)],
        stateTable: PROXMOX_STATE_TABLE,
        checkTargets: NODES,
        checkReasons: [
          { condition: 'unreachable', reason: 'Unreachable' },
          { condition: 'storage-missing', reason: 'StorageNotFound' },
        ],
      },
      dispose: () => setup.close(),
    };
  };
}
