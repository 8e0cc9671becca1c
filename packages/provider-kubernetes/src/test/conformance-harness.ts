import type {
  BackendControl,
  BackendInstanceView,
  ConformanceHarness,
  FaultKind,
  SeedSpec,
  StateRow,
  StepGate,
} from '@egress-proxies/conformance';
import {
  INSTALLATION_LABEL,
  InstanceState,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from '@egress-proxies/contract';
import { createKubernetesProvider, kubernetesProfile } from '../index.js';
import {
  type ControlPlane,
  deleteQuota,
  forceDeletePod,
  type KubeUser,
  must,
  relayKubeconfig,
  setPodQuota,
} from './kube.js';
import { KubeRelay, type RelayStep } from './relay.js';

/** Where the kit's Proxies live (its requests all say namespace `conformance`). */
export const CONFORMANCE_NAMESPACE = 'conformance';
const QUOTA_NAME = 'conformance-no-capacity';
const HOLD_FINALIZER = 'test.egress-proxies.dev/hold';

/** The provider's state table as Pods can really be put in each state (GET-10). */
export const KUBE_STATE_TABLE: readonly StateRow[] = [
  { state: 'Pending', address: false, expected: InstanceState.Provisioning },
  { state: 'Running', address: false, expected: InstanceState.Provisioning },
  { state: 'Running', address: true, expected: InstanceState.Running },
  { state: 'Succeeded', address: false, expected: InstanceState.Terminated },
  { state: 'Failed', address: true, expected: InstanceState.Terminated },
  { state: 'Unknown', address: false, expected: InstanceState.Terminated },
  // A Pod held by a finalizer after its delete: deletionTimestamp set, still Running with an IP.
  { state: 'Terminating', address: true, expected: InstanceState.Terminated },
];

interface PodDoc {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { phase?: string; podIP?: string };
}

/** The control plane, the relay in front of it and a user without Pod rights, shared by every case. */
export class ConformanceEnv {
  cp!: ControlPlane;
  relay!: KubeRelay;
  powerless!: KubeUser;
  #ip = 0;

  /** Prepares `cp` (started by the caller) for the kit: the namespace, the relay and a powerless user. */
  async start(cp: ControlPlane): Promise<void> {
    this.cp = cp;
    await this.cp.ensureNamespace(CONFORMANCE_NAMESPACE);
    this.relay = await KubeRelay.start(this.cp.server, this.cp.caPem);
    // A real identity the API server knows, bound to nothing: every access review says no.
    this.powerless = await this.cp.createLimitedUser('powerless', 'nobody', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]);
  }

  /** Closes the relay; the control plane is the caller's to stop. */
  async stop(): Promise<void> {
    await this.relay?.close();
  }

  nextIp(): string {
    this.#ip += 1;
    return `10.244.${Math.floor(this.#ip / 250)}.${(this.#ip % 250) + 1}`;
  }
}

const podPath = (name: string) =>
  `/api/v1/namespaces/${CONFORMANCE_NAMESPACE}/pods/${encodeURIComponent(name)}`;

function backendControl(env: ConformanceEnv): BackendControl {
  const { cp, relay } = env;
  const readPod = async (name: string): Promise<PodDoc | undefined> => {
    const r = await cp.request('GET', podPath(name));
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`read pod ${name}: HTTP ${r.status} ${r.body}`);
    return r.json<PodDoc>();
  };
  const patchStatus = async (name: string, status: Record<string, unknown>) => {
    await must(
      cp.request(
        'PATCH',
        `${podPath(name)}/status`,
        { status },
        { contentType: 'application/merge-patch+json' },
      ),
      [200],
      `patch status of ${name}`,
    );
  };
  const view = (p: PodDoc): BackendInstanceView => {
    const labels = p.metadata.labels ?? {};
    const state = p.metadata.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? 'Pending');
    const marked = labels[MANAGED_LABEL] === MANAGED_VALUE;
    return {
      name: p.metadata.name,
      id: `${p.metadata.namespace}/${p.metadata.name}`,
      state,
      running: state === 'Running',
      marked,
      ...(marked ? { uid: labels[UID_LABEL] ?? '' } : {}),
    };
  };

  return {
    failNext(step, count, fault: FaultKind) {
      relay.failNext(step as RelayStep, count, fault);
    },
    block(step): StepGate {
      return relay.block(step as RelayStep);
    },
    async setUnreachable(on) {
      await relay.setUnreachable(on);
    },
    setBusy(on) {
      relay.setBusy(on);
    },
    async exhaustCapacity() {
      await setPodQuota(cp, CONFORMANCE_NAMESPACE, QUOTA_NAME, 0);
    },
    async breakTarget(_target, condition) {
      if (condition === 'unreachable') await relay.setUnreachable(true);
      else if (condition === 'unauthorized') relay.replaceToken('a-token-the-api-server-never-issued');
      else if (condition === 'forbidden') relay.replaceToken(env.powerless.token);
      else throw new Error(`unknown break condition ${condition}`);
    },
    async seed(spec: SeedSpec) {
      const labels: Record<string, string> =
        spec.mark === 'none'
          ? { app: 'seeded-by-hand' }
          : {
              [MANAGED_LABEL]: MANAGED_VALUE,
              [UID_LABEL]: spec.mark.uid,
              ...(spec.mark.installation ? { [INSTALLATION_LABEL]: spec.mark.installation } : {}),
            };
      const state = spec.state ?? 'Running';
      const address = spec.address ?? true;
      await must(
        cp.request('POST', `/api/v1/namespaces/${CONFORMANCE_NAMESPACE}/pods`, {
          metadata: {
            name: spec.name,
            labels,
            ...(state === 'Terminating' ? { finalizers: [HOLD_FINALIZER] } : {}),
          },
          spec: { containers: [{ name: 'squid', image: 'squid' }] },
        }),
        [201],
        `seed ${spec.name}`,
      );
      const phase = state === 'Terminating' ? 'Running' : state;
      if (phase !== 'Pending' || address) {
        await patchStatus(spec.name, { phase, ...(address ? { podIP: env.nextIp() } : {}) });
      }
      if (state === 'Terminating')
        await must(cp.request('DELETE', podPath(spec.name)), [200], 'delete held pod');
      return `${CONFORMANCE_NAMESPACE}/${spec.name}`;
    },
    // The API server checks label syntax on every write, so a mark can only be garbled into
    // another valid value: here the managed label cut short, as a hand edit could leave it. The
    // server-side selector and the provider's own check must then both leave the Pod out.
    async corrupt(name) {
      await must(
        cp.request(
          'PATCH',
          podPath(name),
          { metadata: { labels: { [MANAGED_LABEL]: MANAGED_VALUE.slice(0, -1) } } },
          { contentType: 'application/merge-patch+json' },
        ),
        [200],
        `garble the mark of ${name}`,
      );
    },
    async instances() {
      const r = await must(
        cp.request('GET', `/api/v1/namespaces/${CONFORMANCE_NAMESPACE}/pods`),
        [200],
        'list pods',
      );
      return r.json<{ items: PodDoc[] }>().items.map(view);
    },
    resources: () => [],
    calls: () =>
      relay.calls
        .filter((c) => c.step !== 'other')
        .map((c) => ({ step: c.step, ...(c.instance ? { instance: c.instance } : {}) })),
    clearCalls() {
      relay.clearCalls();
    },
    inFlight: (step) => relay.inFlight(step as RelayStep | undefined),
    async removeInstance(name) {
      await forceDeletePod(cp, CONFORMANCE_NAMESPACE, name);
    },
    async stopInstance(name) {
      // A Pod does not stop and come back; the nearest thing is a container that exited.
      await patchStatus(name, { phase: 'Failed' });
    },
    removeResources: () => undefined,
    async setAddress(name, present) {
      const pod = await readPod(name);
      if (!pod) throw new Error(`setAddress: no Pod ${name}`);
      if (present) await patchStatus(name, { phase: 'Running', podIP: pod.status?.podIP || env.nextIp() });
      else if (pod.status?.podIP)
        throw new Error(`setAddress(false): ${name} already has an IP, which cannot be removed`);
      else await patchStatus(name, { phase: 'Running' });
    },
    steps: { probe: 'version', remove: 'deletePod' },
    async reset() {
      await relay.reset();
      await deleteQuota(cp, CONFORMANCE_NAMESPACE, QUOTA_NAME);
    },
  };
}

/**
 * The kit's harness over the real API server: every case gets a fresh provider (its own locks)
 * pointed at the relay, and the shared backend control. The collection-time fixture only reads
 * declarations, so it is built without touching the (not yet started) control plane.
 */
export function createKubeHarness(env: ConformanceEnv, providerName = 'k8s-conformance'): ConformanceHarness {
  return ({ caseId }) => {
    const started = caseId !== 'collect';
    const kubeConfig = started
      ? relayKubeconfig(env.relay.url, env.cp.adminToken)
      : relayKubeconfig('http://127.0.0.1:1', 'collect-only');
    const provider = createKubernetesProvider({}, { name: providerName, kubeConfig });
    // The kit's call log starts with the fixture.
    if (started) env.relay.clearCalls();
    return {
      provider,
      checker: provider,
      backend: started ? backendControl(env) : collectOnlyControl(),
      profile: kubernetesProfile,
      config: {
        providerName,
        placement: {},
        validatedPlacement: [],
        secrets: started ? [env.cp.adminToken] : [],
        stateTable: KUBE_STATE_TABLE,
        checkTargets: ['apiserver'],
        checkReasons: [
          { condition: 'unreachable', reason: 'Unreachable' },
          { condition: 'unauthorized', reason: 'Unauthorized' },
          { condition: 'forbidden', reason: 'Forbidden' },
        ],
      },
    };
  };
}

/** The members the kit inspects at collection time, none of which may be called then. */
function collectOnlyControl(): BackendControl {
  const never = () => {
    throw new Error('the collection-time fixture has no backend');
  };
  return {
    failNext: never,
    block: never,
    setUnreachable: never,
    setBusy: never,
    exhaustCapacity: never,
    breakTarget: never,
    seed: never,
    corrupt: never,
    instances: never,
    resources: never,
    calls: never,
    clearCalls: never,
    inFlight: never,
    removeInstance: never,
    stopInstance: never,
    removeResources: never,
    setAddress: never,
    steps: { probe: 'version', remove: 'deletePod' },
    reset: never,
  };
}
