import { randomUUID } from 'node:crypto';
import { type Checker, InstanceState, type Provider } from '@egress-proxies/contract';
import type { BackendControl, InjectableFault, SeedSpec, StateRow } from '../control.js';
import type { ConformanceFixture, ConformanceHarness } from '../fixture.js';
import {
  type DomainState,
  HOST_CONDITIONS,
  type HostCondition,
  notFoundCodeFor,
  ReferenceBackend,
} from './backend.js';
import type { ReferenceBackendCode } from './backend-error.js';
import { ReferenceCheckReason } from './checker.js';
import type { ReferenceConfig, ReferenceEgressPlan } from './config.js';
import { createReference } from './factory.js';
import { formatId } from './id.js';
import { formatMark, MARK_NAMESPACE, readMark } from './mark.js';
import { isUp } from './state.js';

export const REFERENCE_HOSTS = ['alpha', 'beta', 'gamma'] as const;

/** The reference provider's state table, as the kit's GET-10 checks it. */
export const REFERENCE_STATE_TABLE: readonly StateRow[] = [
  { state: 'nostate', address: false, expected: InstanceState.Provisioning },
  { state: 'running', address: false, expected: InstanceState.Provisioning },
  { state: 'running', address: true, expected: InstanceState.Running },
  { state: 'blocked', address: true, expected: InstanceState.Running },
  { state: 'paused', address: false, expected: InstanceState.Stopped },
  { state: 'shutdown', address: false, expected: InstanceState.Stopped },
  { state: 'shutoff', address: false, expected: InstanceState.Stopped },
  { state: 'crashed', address: false, expected: InstanceState.Stopped },
  { state: 'pmsuspended', address: false, expected: InstanceState.Stopped },
];

const CHECK_REASONS: readonly { condition: HostCondition; reason: string }[] = [
  { condition: 'unreachable', reason: 'Unreachable' },
  { condition: 'auth', reason: 'Unauthorized' },
  { condition: 'pool-missing', reason: ReferenceCheckReason.PoolNotFound },
  { condition: 'pool-inactive', reason: ReferenceCheckReason.PoolNotActive },
  { condition: 'internal', reason: 'APIError' },
];

/**
 * The plan the planned-egress harness configures: a documentation /29 (four hosts once the
 * network, broadcast, gateway and one exclusion are out) and a documentation /64.
 */
export const REFERENCE_EGRESS_PLAN: ReferenceEgressPlan = {
  name: 'doc-block',
  plan: {
    ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
    ipv6: { prefix: '2001:db8:7::/64', gateway: '2001:db8:7::1' },
    nameservers: ['198.51.100.53', '2001:db8:53::53'],
    exclude: ['203.0.113.14'],
  },
};

/** A plan of one family (IPv4): a provider that records or reports egress only with both families fails it. */
export const REFERENCE_IPV4_EGRESS_PLAN: ReferenceEgressPlan = {
  name: 'doc-ipv4',
  plan: {
    ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
    nameservers: ['198.51.100.53'],
    exclude: ['203.0.113.14'],
  },
};

/**
 * A plan with room for every other case of the kit (some create a dozen instances), to show the
 * planned mode keeps the rest of the contract; too large for the cases that fill a plan.
 */
export const REFERENCE_ROOMY_EGRESS_PLAN: ReferenceEgressPlan = {
  name: 'doc-roomy',
  plan: {
    ipv4: { ranges: ['198.51.100.0/24'], gateway: '198.51.100.1' },
    ipv6: { prefix: '2001:db8:8::/64', gateway: '2001:db8:8::1' },
  },
};

/** A small, complete reference config over `hosts` with `token`. */
export function referenceConfig(token: string, overrides: Partial<ReferenceConfig> = {}): ReferenceConfig {
  return {
    hosts: REFERENCE_HOSTS.map((name) => ({ name, address: `${name}.lab.internal:16509` })),
    machineTypes: {
      small: { vcpus: 1, memoryMiB: 512, diskGiB: 4 },
      medium: { vcpus: 2, memoryMiB: 2048, diskGiB: 10 },
    },
    images: {
      'debian-12': { url: 'https://images.example.invalid/debian-12-generic-amd64.qcow2', sizeGiB: 2 },
    },
    token,
    pollIntervalMs: 1,
    startTimeoutMs: 2_000,
    ...overrides,
  };
}

function faultCode(step: string, fault: InjectableFault | 'no-pool' | 'no-host'): ReferenceBackendCode {
  switch (fault) {
    case 'unreachable':
      return 'UNREACHABLE';
    case 'busy':
      return 'BUSY';
    case 'not-found':
      return notFoundCodeFor(step);
    case 'out-of-capacity':
      return 'NO_SPACE';
    case 'auth-rejected':
      return 'AUTH';
    case 'timeout':
      return 'TIMEOUT';
    case 'no-pool':
      return 'NO_POOL';
    case 'no-host':
      return 'NO_HOST';
    default:
      return 'INTERNAL';
  }
}

/** A seeded mark; an invalid createdAt is written as text that is no time (a damaged mark). */
function writeSeedMark(mark: Exclude<SeedSpec['mark'], 'none'>): string {
  const createdAt = mark.createdAt ?? new Date();
  const valid = !Number.isNaN(createdAt.getTime());
  const written = formatMark({
    uid: mark.uid,
    ...(valid ? { createdAt } : {}),
    ...(mark.installation ? { installation: mark.installation } : {}),
  });
  const out = valid ? written : written.replace('/>', ' createdAt="the day before yesterday"/>');
  if (mark.written === 'other-tool')
    return out.replace(MARK_NAMESPACE, 'https://other-tool.example/xmlns/instance');
  // As a writer that pretty-prints lays it out: padded, attributes on lines of their own.
  if (mark.written === 'reformatted') return `\n  ${out.replaceAll('" ', '"\n    ').replace('/>', ' />')}\n`;
  return out;
}

/** The kit's control interface over an in-memory reference backend. */
export function referenceControl(backend: ReferenceBackend, defaultHost: string): BackendControl {
  const host = (zone?: string) => zone ?? defaultHost;
  const where = (name: string, zone?: string) =>
    zone ?? backend.domains().find((d) => d.name === name)?.host ?? defaultHost;
  return {
    failNext: (step, count, fault: InjectableFault) =>
      backend.failNext(step, count, faultCode(step, fault as InjectableFault | 'no-pool' | 'no-host')),
    faultKinds: ['auth-rejected', 'timeout'],
    block: (step) => backend.block(step),
    setUnreachable: (on, zone) => backend.setUnreachable(on, zone),
    setBusy: (on, zone) => backend.setBusy(on, zone),
    exhaustCapacity: (zone) => backend.setPoolFull(true, zone),
    startFaults: ['crashes', 'powers-off', 'never-runs'],
    failStart: (name, fault) => backend.failStart(name, fault),
    markVariants: ['managed-false', 'unparsable-created-at', 'other-tool', 'reformatted'],
    backendCode: (step, fault) => faultCode(step, fault),
    extraFaults: [
      { fault: 'no-pool', kind: 'Permanent', code: 'POOL_NOT_FOUND' },
      { fault: 'no-host', kind: 'Permanent', code: 'PERMANENT' },
    ],
    breakTarget: (target, condition) => {
      if (!(HOST_CONDITIONS as readonly string[]).includes(condition)) {
        throw new TypeError(`unknown host condition ${JSON.stringify(condition)}`);
      }
      backend.breakHost(target, condition as HostCondition);
    },
    seed(spec) {
      const h = host(spec.zone);
      const metadata = spec.mark === 'none' ? undefined : writeSeedMark(spec.mark);
      // The whole mark with the flag off, as a human switching management off would leave it.
      const written =
        spec.mark !== 'none' && spec.mark.managed === false
          ? metadata?.replace('managed="true"', 'managed="false"')
          : metadata;
      backend.seedDomain({
        host: h,
        name: spec.name,
        state: (spec.state ?? 'running') as DomainState,
        ...(written ? { metadata: written } : {}),
        address: spec.address ?? true,
      });
      return formatId(h, spec.name);
    },
    corrupt: (name, zone) => backend.setMetadata(where(name, zone), name, '<instance managed="true" uid='),
    instances: () =>
      backend.domains().map((d) => {
        const r = readMark(d.metadata);
        return {
          name: d.name,
          zone: d.host,
          id: formatId(d.host, d.name),
          state: d.state,
          running: isUp(d.state),
          marked: r.kind === 'marked',
          ...(r.kind === 'marked' ? { uid: r.mark.uid } : {}),
        };
      }),
    resources: () =>
      backend
        .volumes()
        .filter((v) => v.kind !== 'base' && v.owner)
        .map((v) => ({ kind: v.kind, name: v.name, instance: v.owner!, zone: v.host })),
    calls: () =>
      backend
        .calls()
        .map((c) => ({ step: c.step, zone: c.host, ...(c.instance ? { instance: c.instance } : {}) })),
    deliveredNetwork: (name, zone) => {
      const h = where(name, zone);
      const seed = backend.volumes().find((v) => v.kind === 'seed' && v.owner === name && v.host === h);
      const macs = backend.domains().find((d) => d.name === name && d.host === h)?.macs ?? [];
      return { ...(seed?.networkConfig === undefined ? {} : { networkConfig: seed.networkConfig }), macs };
    },
    deliveredCloudInit: (name, zone) => {
      const seed = backend
        .volumes()
        .find((v) => v.kind === 'seed' && v.owner === name && v.host === where(name, zone));
      return seed?.content ? new TextDecoder().decode(seed.content) : undefined;
    },
    clearCalls: () => backend.clearCalls(),
    inFlight: (step) => backend.inFlight(step),
    removeInstance: (name, zone) => backend.removeDomainOutOfBand(where(name, zone), name),
    stopInstance: (name, zone) => backend.stopOutOfBand(where(name, zone), name),
    removeResources: (name, zone) => {
      for (const h of zone ? [zone] : backend.hostNames()) backend.removeVolumesOutOfBand(h, name);
    },
    setAddress: (name, present, zone) => backend.setAddress(where(name, zone), name, present),
    steps: {
      address: 'address',
      stop: 'stop',
      remove: 'undefine',
      probe: 'probe',
      state: 'state',
      define: 'define',
    },
    reset: () => backend.reset(),
  };
}

export interface ReferenceHarnessOptions {
  /** The configured provider name; `reference-conformance` when absent. */
  providerName?: string;
  /** The configured hosts; the three of `REFERENCE_HOSTS` when absent. */
  hosts?: readonly string[];
  /** Passed to the config. */
  listPartial?: 'fail-whole' | 'omit-unreachable';
  /** An egress plan for every host (`REFERENCE_EGRESS_PLAN` runs the planned-egress cases). */
  egressPlan?: ReferenceEgressPlan;
  /** Builds the provider under test over the backend (the kit's tests pass deliberately broken ones). */
  makeProvider?: (args: { name: string; config: ReferenceConfig; backend: ReferenceBackend }) => {
    provider: Provider;
    checker?: Checker;
  };
}

/**
 * The conformance harness for the reference provider: every call returns a fresh provider over a
 * fresh in-memory cluster of three hosts, with a random token planted as the credential sentinel.
 */
export function createReferenceHarness(options: ReferenceHarnessOptions = {}): ConformanceHarness {
  return (): ConformanceFixture => {
    const name = options.providerName ?? 'reference-conformance';
    const token = `ref-token-${randomUUID()}`;
    const hosts = options.hosts ?? REFERENCE_HOSTS;
    const config = referenceConfig(token, {
      hosts: hosts.map((h) => ({ name: h, address: `${h}.lab.internal:16509` })),
      ...(options.listPartial ? { listPartial: options.listPartial } : {}),
      ...(options.egressPlan ? { egressPlan: options.egressPlan } : {}),
    });
    const backend = new ReferenceBackend({ hosts: hosts.map((h) => ({ name: h, token })) });
    const make = () =>
      options.makeProvider
        ? options.makeProvider({ name, config, backend })
        : createReference(name, config, backend);
    const made = make();
    return {
      provider: made.provider,
      freshProvider: () => make().provider,
      ...(made.checker ? { checker: made.checker } : {}),
      backend: referenceControl(backend, hosts[0]!),
      profile: made.provider.profile,
      config: {
        providerName: name,
        placement: { zone: hosts[0]!, machineType: 'small', image: 'debian-12' },
        validatedPlacement: ['zone', 'machineType', 'image'],
        // One configured host is the zone of every request that names none.
        requiredPlacement: hosts.length === 1 ? ['machineType', 'image'] : ['zone', 'machineType', 'image'],
        zones: hosts,
        unconfiguredZoneId: (n) => formatId('retired', n),
        secrets: [token],
        stateTable: REFERENCE_STATE_TABLE,
        checkTargets: hosts,
        checkReasons: CHECK_REASONS,
        ...(options.egressPlan
          ? { egress: { planName: options.egressPlan.name, plan: options.egressPlan.plan } }
          : {}),
      },
      dispose: () => made.provider.close?.(),
    };
  };
}
