import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type {
  BackendControl,
  ConformanceFixture,
  ConformanceHarness,
  FaultKind,
  StateRow,
} from '@egress-proxies/conformance';
import { InstanceState } from '@egress-proxies/contract';
import { DomainState } from 'libvirt-rpc-ts';
import { type KvmConfigInput, parseKvmConfig } from '../config.js';
import type { KvmFlavour } from '../flavour.js';
import type { ImageFetcher } from '../http-fetcher.js';
import { formatProviderId } from '../id.js';
import { metadataElement, parseMark } from '../metadata.js';
import { overlayName, secondaryOf, seedName } from '../names.js';
import { createKvmFamilyProvider, type KvmFamilyProvider, type KvmProviderOptions } from '../provider.js';
import { loadCredentials } from '../ssh-dialer.js';
import { isUp, stateName } from '../state.js';
import { FAKE_HOST_CONDITIONS, type FakeHostCondition, FakeLibvirt } from './fake-libvirt.js';
import { rootFileOfIso } from './seed-iso-file.js';

/** Another tool's metadata namespace on the same domains. */
const OTHER_TOOL_NAMESPACE = 'https://other-tool.example/xmlns/instance';

export const FAKE_HOSTS = ['alpha', 'beta'] as const;

const STATE_BY_NAME: Record<string, number> = {
  nostate: DomainState.NOSTATE,
  running: DomainState.RUNNING,
  blocked: DomainState.BLOCKED,
  paused: DomainState.PAUSED,
  shutdown: DomainState.SHUTDOWN,
  shutoff: DomainState.SHUTOFF,
  crashed: DomainState.CRASHED,
  pmsuspended: DomainState.PMSUSPENDED,
};

/** The shared state table, as the kit's GET-10 checks it. */
export const KVM_STATE_TABLE: readonly StateRow[] = [
  { state: 'nostate', address: false, expected: InstanceState.Provisioning },
  { state: 'running', address: false, expected: InstanceState.Provisioning },
  { state: 'running', address: true, expected: InstanceState.Running },
  { state: 'blocked', address: false, expected: InstanceState.Provisioning },
  { state: 'blocked', address: true, expected: InstanceState.Running },
  { state: 'paused', address: false, expected: InstanceState.Stopped },
  { state: 'shutdown', address: false, expected: InstanceState.Stopped },
  { state: 'shutoff', address: false, expected: InstanceState.Stopped },
  { state: 'crashed', address: false, expected: InstanceState.Stopped },
  { state: 'pmsuspended', address: false, expected: InstanceState.Stopped },
];

const CHECK_REASONS: readonly { condition: FakeHostCondition; reason: string }[] = [
  { condition: 'unreachable', reason: 'Unreachable' },
  { condition: 'auth', reason: 'Unauthorized' },
  { condition: 'host-key', reason: 'HostKeyMismatch' },
  { condition: 'credentials', reason: 'CredentialsUnavailable' },
  { condition: 'pool-missing', reason: 'PoolNotFound' },
  { condition: 'pool-inactive', reason: 'PoolNotActive' },
  { condition: 'internal', reason: 'APIError' },
  { condition: 'forbidden', reason: 'Forbidden' },
];

/** A small image served from memory, with a Content-Length, like an HTTP server would. */
export function memoryImage(bytes: Buffer): ImageFetcher {
  return async (_url, o) => {
    if (o.signal?.aborted) throw o.signal.reason;
    return {
      contentLength: bytes.length,
      body: Readable.from([bytes.subarray(0, bytes.length / 2), bytes.subarray(bytes.length / 2)]),
    };
  };
}

/** The kit's control interface over the fake libvirt. */
export function fakeControl(fake: FakeLibvirt, flavour: KvmFlavour, defaultHost: string): BackendControl {
  const where = (name: string, zone?: string) => {
    if (zone) return zone;
    for (const h of fake.hosts.values()) if (h.domains.has(name)) return h.name;
    return defaultHost;
  };
  return {
    failNext: (step, count, fault: FaultKind) => fake.failNext(step, count, fault),
    // The libvirt error name the fake answers each fault with (what a line's libvirtCodeName says).
    backendCode: (step, fault) => {
      if (fault === 'busy') return 'VIR_ERR_RESOURCE_BUSY';
      if (fault === 'out-of-capacity') return 'VIR_ERR_SYSTEM_ERROR';
      if (fault === 'unreachable') return 'ConnectionClosedError';
      if (fault !== 'not-found') return 'VIR_ERR_INTERNAL_ERROR';
      if (step.startsWith('storagePool')) return 'VIR_ERR_NO_STORAGE_POOL';
      return step.startsWith('storageVol') ? 'VIR_ERR_NO_STORAGE_VOL' : 'VIR_ERR_NO_DOMAIN';
    },
    block: (step) => fake.block(step),
    // The seed's network-config as uploaded, read out of the seed image, and the MAC of each
    // NIC in the domain's XML: what the planned-egress cases hold against each other.
    deliveredNetwork: (name, zone) => {
      const host = fake.hosts.get(where(name, zone));
      const xml = host?.domains.get(name)?.xml ?? '';
      const macs = [...xml.matchAll(/<mac address="([0-9A-Fa-f:]{17})"/g)].map((m) => m[1]!);
      let networkConfig: string | undefined;
      for (const pool of host?.pools.values() ?? []) {
        const image = pool.volumes.get(seedName(name))?.data;
        const file = image ? rootFileOfIso(image, 'NETWORK_.;1') : undefined;
        if (file) networkConfig = new TextDecoder().decode(file);
      }
      return { ...(networkConfig === undefined ? {} : { networkConfig }), macs };
    },
    setUnreachable: (on, zone) => {
      for (const h of fake.hosts.values()) if (!zone || h.name === zone) h.unreachable = on;
    },
    setBusy: (on, zone) => {
      for (const h of fake.hosts.values()) if (!zone || h.name === zone) h.busy = on;
    },
    exhaustCapacity: (zone) => {
      for (const h of fake.hosts.values())
        if (!zone || h.name === zone) for (const p of h.pools.values()) p.full = true;
    },
    breakTarget: (target, condition) => {
      if (!(FAKE_HOST_CONDITIONS as readonly string[]).includes(condition))
        throw new TypeError(`unknown host condition ${JSON.stringify(condition)}`);
      fake.host(target).condition = condition as FakeHostCondition;
    },
    seed(spec) {
      const host = spec.zone ?? defaultHost;
      const state = STATE_BY_NAME[spec.state ?? 'running'];
      if (state === undefined) throw new TypeError(`unknown state ${JSON.stringify(spec.state)}`);
      const metadata = new Map<string, string>();
      if (spec.mark !== 'none') {
        const createdAt = spec.mark.createdAt ?? new Date();
        const valid = !Number.isNaN(createdAt.getTime());
        const el = metadataElement(flavour, {
          // The mark variants: the managed flag off, a creation time that is no time.
          managed: spec.mark.managed !== false,
          uid: spec.mark.uid,
          ...(valid ? { createdAt } : {}),
          ...(spec.mark.installation ? { installation: spec.mark.installation } : {}),
        });
        // libvirt hands the element back without its namespace declaration.
        const back = el.replace(/ xmlns:[\w.-]+="[^"]*"/, '');
        const text = valid ? back : back.replace('/>', ' createdAt="the day before yesterday"/>');
        // The layout variants: another tool's element of the same shape under its own namespace
        // (libvirt keeps one element per namespace URI), and our element as a pretty-printer
        // lays it out.
        if (spec.mark.written === 'other-tool') metadata.set(OTHER_TOOL_NAMESPACE, text);
        else if (spec.mark.written === 'reformatted')
          metadata.set(flavour.namespace, `\n  ${text.replaceAll('" ', '"\n    ').replace('/>', ' />')}\n`);
        else metadata.set(flavour.namespace, text);
      }
      const up =
        state !== DomainState.SHUTOFF && state !== DomainState.CRASHED && state !== DomainState.SHUTDOWN;
      fake.host(host).domains.set(spec.name, {
        name: spec.name,
        uuid: randomUUID(),
        id: up ? 1000 + fake.host(host).domains.size : -1,
        state,
        xml: `<domain type="kvm"><name>${spec.name}</name></domain>`,
        metadata,
        addresses: spec.address === false ? {} : { [fake.addressSource]: fake.nextAddress() },
        uefi: false,
      });
      return formatProviderId(host, spec.name);
    },
    corrupt: (name, zone) => {
      const d = fake.host(where(name, zone)).domains.get(name);
      if (!d) throw new TypeError(`no domain ${name}`);
      d.metadata.set(flavour.namespace, '<instance managed="true" uid=');
    },
    instances: () =>
      [...fake.hosts.values()].flatMap((h) =>
        [...h.domains.values()].map((d) => {
          const raw = d.metadata.get(flavour.namespace);
          let mark: ReturnType<typeof parseMark> | undefined;
          try {
            mark = raw === undefined ? undefined : parseMark(raw);
          } catch {
            mark = undefined;
          }
          return {
            name: d.name,
            zone: h.name,
            id: formatProviderId(h.name, d.name),
            state: stateName(d.state),
            running: isUp(d.state),
            marked: mark?.managed === true,
            ...(mark ? { uid: mark.uid } : {}),
          };
        }),
      ),
    resources: () =>
      [...fake.hosts.values()].flatMap((h) =>
        [...h.pools.values()].flatMap((p) =>
          [...p.volumes.values()].flatMap((v) => {
            const s = secondaryOf(v.name);
            return s ? [{ kind: s.kind, name: v.name, instance: s.instance, zone: h.name }] : [];
          }),
        ),
      ),
    calls: () =>
      fake
        .calls()
        .map((c) => ({ step: c.step, zone: c.host, ...(c.instance ? { instance: c.instance } : {}) })),
    clearCalls: () => fake.clearCalls(),
    inFlight: (step) => fake.inFlight(step),
    removeInstance: (name, zone) => {
      fake.host(where(name, zone)).domains.delete(name);
    },
    stopInstance: (name, zone) => {
      const d = fake.host(where(name, zone)).domains.get(name);
      if (d) {
        d.state = DomainState.SHUTOFF;
        d.id = -1;
      }
    },
    removeResources: (name, zone) => {
      for (const h of fake.hosts.values()) {
        if (zone && h.name !== zone) continue;
        for (const p of h.pools.values()) {
          p.volumes.delete(overlayName(name));
          p.volumes.delete(seedName(name));
        }
      }
    },
    setAddress: (name, present, zone) => {
      const d = fake.host(where(name, zone)).domains.get(name);
      if (!d) return;
      if (present) d.addresses[fake.addressSource] = fake.nextAddress();
      else d.addresses = {};
    },
    markVariants: ['managed-false', 'unparsable-created-at', 'other-tool', 'reformatted'],
    startFaults: ['crashes', 'powers-off', 'never-runs'],
    failStart: (name, fault) => {
      fake.startFailures.set(name, fault);
    },
    steps: {
      address: 'domainInterfaceAddresses',
      stop: 'domainDestroy',
      remove: 'domainUndefineFlags',
      probe: 'connectGetLibVersion',
    },
    reset: () => fake.reset(),
  };
}

export interface KvmHarnessOptions {
  flavour: KvmFlavour;
  providerName?: string;
  /** Builds the provider under test (the providers pass their own factory). */
  makeProvider?: (config: KvmConfigInput, options: KvmProviderOptions) => KvmFamilyProvider;
}

/**
 * The conformance harness over the fake: a fresh fake libvirt with two hosts, a provider over
 * it, and credential files holding a random sentinel (never to be logged).
 */
export function kvmConformanceHarness(opts: KvmHarnessOptions): ConformanceHarness {
  return (): ConformanceFixture => {
    const { flavour } = opts;
    const name = opts.providerName ?? `${flavour.type}-conformance`;
    const dir = mkdtempSync(join(tmpdir(), 'kvm-conformance-'));
    const keySentinel = `key-sentinel-${randomUUID()}`;
    writeFileSync(
      join(dir, 'id_ed25519'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${keySentinel}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    writeFileSync(
      join(dir, 'known_hosts'),
      'alpha.lab.invalid ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFake\n',
    );
    const image = randomBytes(64 * 1024);
    const config: KvmConfigInput = {
      sshKeyFile: join(dir, 'id_ed25519'),
      knownHostsFile: join(dir, 'known_hosts'),
      diskSizeGb: 4,
      images: {
        'debian-13': {
          url: 'http://images.lab.invalid/debian-13.qcow2',
          sha256: createHash('sha256').update(image).digest('hex'),
        },
      },
      machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
      hosts: FAKE_HOSTS.map((h) => ({
        name: h,
        address: `${h}.lab.invalid:22`,
        user: 'virt',
        bridge: 'br0',
      })),
    };
    const fake = new FakeLibvirt({
      hosts: FAKE_HOSTS.map((h) => ({ name: h, pool: 'default' })),
      addressSource: flavour.addressOrder[0] ?? 'agent',
    });
    const options: KvmProviderOptions = {
      name,
      dialer: fake.dialer(() => loadCredentials(parseKvmConfig(flavour.type, config))),
      fetcher: memoryImage(image),
      pollIntervalMs: 1,
      startTimeoutMs: 2_000,
    };
    const provider = opts.makeProvider
      ? opts.makeProvider(config, options)
      : createKvmFamilyProvider(flavour, config, options);
    return {
      provider,
      checker: provider,
      backend: fakeControl(fake, flavour, FAKE_HOSTS[0]),
      profile: provider.profile,
      config: {
        providerName: name,
        placement: { zone: FAKE_HOSTS[0], machineType: 'small', image: 'debian-13' },
        validatedPlacement: ['zone', 'machineType', 'image'],
        // Two hosts: no zone is the default, and the catalogues have no default entry.
        requiredPlacement: ['zone', 'machineType', 'image'],
        zones: FAKE_HOSTS,
        unconfiguredZoneId: (n) => formatProviderId('retired', n),
        secrets: [keySentinel],
        stateTable: KVM_STATE_TABLE,
        checkTargets: FAKE_HOSTS,
        checkReasons: CHECK_REASONS,
      },
      dispose: async () => {
        await provider.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}
