import type {
  BackendCall,
  BackendControl,
  ConformanceFixture,
  ConformanceHarness,
  FaultKind,
  SeedSpec,
  StateRow,
} from '@egress-proxies/conformance';
import { INSTALLATION_LABEL, MANAGED_LABEL, MANAGED_VALUE, UID_LABEL } from '@egress-proxies/contract';
import type { RequestAuth } from '../auth.js';
import { formatId } from '../id.js';
import { labelValue } from '../labels.js';
import { createGcpProvider } from '../provider.js';
import { FakeCompute, type FaultSpec, type Step } from './fake-compute.js';
import { computeErrors, type FakeError } from './fake-errors.js';

export const CONFORMANCE_ZONES = ['us-central1-a', 'europe-west1-b'] as const;
const IMAGE = 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64';

/** Every Compute status the provider maps, with the contract state it must give. */
export const GCP_STATE_TABLE: readonly StateRow[] = [
  { state: 'PROVISIONING', address: false, expected: 'Provisioning' },
  { state: 'STAGING', address: false, expected: 'Provisioning' },
  { state: 'REPAIRING', address: true, expected: 'Provisioning' },
  { state: 'RUNNING', address: false, expected: 'Provisioning' },
  { state: 'RUNNING', address: true, expected: 'Running' },
  { state: 'STOPPING', address: true, expected: 'Stopped' },
  { state: 'STOPPED', address: false, expected: 'Stopped' },
  { state: 'SUSPENDING', address: true, expected: 'Stopped' },
  { state: 'SUSPENDED', address: false, expected: 'Stopped' },
  { state: 'TERMINATED', address: false, expected: 'Terminated' },
];

/** Checker conditions the fake can produce, with the reason the Checker must report. */
export const GCP_CHECK_REASONS = [
  { condition: 'unauthorized', reason: 'Unauthorized' },
  { condition: 'forbidden', reason: 'Forbidden' },
  { condition: 'api-disabled', reason: 'APIDisabled' },
  { condition: 'unreachable', reason: 'Unreachable' },
  { condition: 'no-quota', reason: 'QuotaExceeded' },
] as const;

/** The kit's fault classes as Compute answers them. */
function faultFor(kind: FaultKind, project: string, step: string): FaultSpec {
  switch (kind) {
    case 'unreachable':
      return { kind: 'reset' };
    case 'busy':
      return { kind: 'error', error: computeErrors.backendError() };
    case 'not-found':
      return {
        kind: 'error',
        error: computeErrors.notFound(`projects/${project}/${step.replace('.', '/')}`),
      };
    case 'internal':
      return { kind: 'error', error: computeErrors.internal() };
    case 'out-of-capacity':
      return { kind: 'error', error: computeErrors.quotaExceeded('INSTANCES', 'us-central1', 0) };
  }
}

/** The conformance kit's control interface over a `FakeCompute`. */
export function backendControl(
  fake: FakeCompute,
  defaultZone: string = CONFORMANCE_ZONES[0],
): BackendControl {
  const zoneOf = (zone?: string) => zone ?? defaultZone;
  return {
    failNext: (step, count, fault) => fake.failNext(step as Step, count, faultFor(fault, fake.project, step)),
    // The HTTP status Compute answers with; a cut connection has none the kit could name.
    backendCode: (step, fault) => {
      const f = faultFor(fault as FaultKind, fake.project, step);
      return f.kind === 'error' ? f.error.status : 'ECONNRESET';
    },
    block: (step) => fake.block(step),
    setUnreachable: (on, zone) => fake.setUnreachable(on, zone),
    setBusy: (on, zone) => fake.setBusy(on, zone),
    exhaustCapacity: (zone) => fake.exhaustCapacity(zone),
    breakTarget(_target, condition) {
      const errors: Record<string, FakeError> = {
        unauthorized: computeErrors.unauthenticated(),
        forbidden: computeErrors.forbidden('compute.instances.list', `projects/${fake.project}`),
        'api-disabled': computeErrors.apiDisabled(fake.project),
      };
      if (condition === 'unreachable') fake.setUnreachable(true);
      else if (condition === 'no-quota') fake.exhaustCapacity();
      else if (errors[condition]) fake.setGlobalError(errors[condition]);
      else throw new Error(`unknown check condition ${condition}`);
    },
    seed(spec: SeedSpec) {
      const zone = zoneOf(spec.zone);
      const labels: Record<string, string> = {};
      if (spec.mark !== 'none') {
        labels[MANAGED_LABEL] = spec.mark.managed === false ? 'false' : MANAGED_VALUE;
        labels[UID_LABEL] = spec.mark.uid === '' ? '' : labelValue(spec.mark.uid);
        if (spec.mark.installation) labels[INSTALLATION_LABEL] = labelValue(spec.mark.installation);
      }
      const createdAt = spec.mark !== 'none' ? spec.mark.createdAt : undefined;
      fake.putInstance(
        zone,
        {
          name: spec.name,
          labels,
          networkInterfaces: [
            { network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] },
          ],
        },
        {
          status: spec.state ?? 'RUNNING',
          address: spec.address ?? true,
          ...(createdAt ? { createdAt } : {}),
        },
      );
      return formatId(zone, spec.name);
    },
    // Compute checks label syntax on every write, so a mark can only be garbled into another
    // valid value: here the managed label cut short, as a hand edit could leave it. The
    // server-side filter and the provider's own check must then both leave the instance out.
    corrupt(name, zone) {
      const z = zoneOf(zone);
      const inst = fake.instance(z, name);
      if (!inst) throw new Error(`corrupt: no instance ${z}/${name}`);
      fake.setLabels(z, name, { ...inst.labels, [MANAGED_LABEL]: MANAGED_VALUE.slice(0, -1) });
    },
    instances: () =>
      fake.allInstances().map((i) => ({
        name: i.name,
        zone: i.zone,
        id: formatId(i.zone, i.name),
        state: i.status ?? '',
        running: i.status === 'RUNNING',
        marked: i.labels?.[MANAGED_LABEL] === MANAGED_VALUE,
        ...(i.labels?.[UID_LABEL] !== undefined ? { uid: i.labels[UID_LABEL] } : {}),
      })),
    resources: () =>
      fake.disks().map((d) => ({ kind: 'disk', name: d.name, instance: d.instance, zone: d.zone })),
    calls: (): BackendCall[] =>
      fake.calls
        .filter((c) => c.step !== 'oauth.token')
        .map((c) => ({
          step: c.step,
          ...(c.instance ? { instance: c.instance } : {}),
          ...(c.zone ? { zone: c.zone } : {}),
        })),
    clearCalls: () => fake.clearCalls(),
    inFlight: (step) => fake.inFlight(step),
    removeInstance: (name, zone) => fake.removeInstance(zoneOf(zone), name),
    // Compute reports a stopped instance as TERMINATED (STOPPED is in the API's enum but is not
    // what a stop leaves), so an out-of-band stop here is what a real one looks like.
    stopInstance: (name, zone) => fake.setStatus(zoneOf(zone), name, 'TERMINATED'),
    removeResources: (name, zone) => fake.removeDisk(zoneOf(zone), name),
    setAddress: (name, present, zone) => fake.setAddress(zoneOf(zone), name, present),
    steps: { remove: 'instances.delete', probe: 'instances.aggregatedList' },
    markVariants: ['managed-false'],
    reset: () => fake.reset(),
  };
}

/**
 * A fresh fake and provider per case. The fake's clock follows the wall clock with every delay
 * at zero: operations finish in their answer and instances run at once, which is what the
 * kit's cases (written for any backend) can observe without a clock of their own.
 */
export const gcpConformanceHarness: ConformanceHarness = async (): Promise<ConformanceFixture> => {
  const fake = await FakeCompute.start({
    zones: [...CONFORMANCE_ZONES],
    clock: 'real',
    timings: { stagingAfterMs: 0, runningAfterMs: 0, insertDoneAfterMs: 0, deleteAfterMs: 0 },
  });
  const token = `ya29.conformance-${Math.random().toString(36).slice(2)}-token`;
  const auth: RequestAuth = { getRequestHeaders: async () => ({ authorization: `Bearer ${token}` }) };
  const provider = createGcpProvider(
    {
      project: fake.project,
      zones: [...CONFORMANCE_ZONES],
      machineTypes: { small: 'e2-small' },
      images: { ubuntu: IMAGE },
    },
    { name: 'gcp-conformance', endpoint: fake.url, auth, requestTimeoutMs: 5_000 },
  );
  return {
    provider,
    checker: provider,
    backend: backendControl(fake),
    profile: provider.profile,
    config: {
      providerName: 'gcp-conformance',
      placement: { zone: CONFORMANCE_ZONES[0], machineType: 'small', image: 'ubuntu' },
      validatedPlacement: ['zone', 'machineType', 'image'],
      // Two zones configured: none is the default.
      requiredPlacement: ['zone', 'machineType', 'image'],
      zones: [...CONFORMANCE_ZONES],
      secrets: [token],
      stateTable: GCP_STATE_TABLE,
      checkTargets: [fake.project],
      checkReasons: GCP_CHECK_REASONS,
      unconfiguredZoneId: (name) => formatId('asia-east1-a', name),
    },
    async dispose() {
      await provider.close?.();
      await fake.close();
    },
  };
};
