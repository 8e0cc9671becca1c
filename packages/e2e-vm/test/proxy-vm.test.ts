import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instanceIdFor } from '@egress-proxies/nocloud';
import {
  type Collector,
  descendantsOf,
  findSpanChain,
  type KubeControlPlane,
  startCollector,
  startKubeControlPlane,
} from '@egress-proxies/testenv-kube';
import { freePort, runChecked, type SshEndpoint, startSshd } from '@egress-proxies/testenv-libvirt';
import { guestExecVia, libvirtAgentCall } from '@egress-proxies/testenv-vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  type E2eTimings,
  type EchoServer,
  type ImageServer,
  type PhaseEvent,
  type ProxyState,
  readE2eEnv,
  squidCloudInit,
  startEchoServer,
  startImageServer,
  startUp,
  type UpProcess,
} from '../src/index.js';

// The seeds' last manual step, automated: a Proxy document goes through the operator (standalone
// mode) and kvm2 to a TCG guest booted from the debootstrap image, with cloud-init configuring
// Squid; the probe and curl go through it to an echo server. Everything runs inside the network
// namespace the runner created: the guests' bridge, dnsmasq, a private libvirtd, the sshd kvm2
// dials, the image and echo servers, the operator and this test.

const env = readE2eEnv();
const SENTINEL = `e2e-sentinel-${randomUUID().slice(0, 8)}`;
const PORT = 3129;
const IMAGE_KEY = 'bookworm';
const BOOT_TIMEOUT_MS = 20 * 60_000;
/** A step's budget above the slowest deadline inside it (the guest agent's 120 s per exec). */
const STEP_TIMEOUT_MS = 150_000;
// The egress plan: the documentation block and prefix the runner's router routes to the bridge.
const PLAN_HOST = 'e2e-plan';
const POOL = 'e2e-pool';
const POOL_KEY = `default/${POOL}`;
const RECYCLE_ANNOTATION = 'egress-proxies.dev/recycle';
const up4 = env.upstream;

const dir = join(env.workDir, 'operator');
const proxiesPath = join(dir, 'proxies.yaml');
const providersPath = join(dir, 'providers.yaml');
const stateDir = join(dir, 'state');

let ssh: SshEndpoint;
let images: ImageServer;
let echo: EchoServer;
let up: UpProcess | undefined;
let appliedAt = 0;
const timings: Partial<E2eTimings> = {};

function proxyDocument(name: string, provider: string) {
  return {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name },
    spec: {
      provider,
      placement: { zone: 'e2e', machineType: 'small', image: IMAGE_KEY },
      port: PORT,
      cloudInit: { inline: cloudInit() },
      probe: { target: echo.url, interval: '5s', timeout: '5s', retries: 0 },
    },
  };
}

// The DHCP subnet and the planned block: the operator reaches a planned guest from the bridge's
// address in the block.
const cloudInit = () => squidCloudInit({ port: PORT, allow: [env.cidr, up4.ipv4Block], sentinel: SENTINEL });

/** A Proxy on the host with the egress plan, probed through the router on both families. */
function plannedSpec() {
  return {
    provider: 'hv',
    placement: { zone: PLAN_HOST, machineType: 'small', image: IMAGE_KEY },
    port: PORT,
    cloudInit: { inline: cloudInit() },
    probe: { target: up4.echoUrl4, targetIPv6: up4.echoUrl6, interval: '5s', timeout: '5s', retries: 0 },
  };
}

/** The pool of two planned members (undefined: no pool); `recycle` names a member to replace. */
let pool: { recycle?: string } | undefined;

function poolDocument(p: { recycle?: string }) {
  return {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'ProxyPool',
    metadata: { name: POOL, ...(p.recycle ? { annotations: { [RECYCLE_ANNOTATION]: p.recycle } } : {}) },
    spec: { replicas: 2, template: plannedSpec() },
  };
}

/**
 * JSON is YAML: one document per Proxy, and the pool when there is one; `e2e-k*` Proxies use
 * the kvm provider type, and `e2e-kp` is a kvm Proxy on the planned host.
 */
function applyProxies(...names: string[]): number {
  const docs: unknown[] = names.map((n) =>
    n === 'e2e-kp'
      ? { ...proxyDocument(n, 'hv-kvm'), spec: { ...plannedSpec(), provider: 'hv-kvm' } }
      : proxyDocument(n, n.startsWith('e2e-k') ? 'hv-kvm' : 'hv'),
  );
  if (pool) docs.push(poolDocument(pool));
  const text = docs.map((d) => JSON.stringify(d)).join('\n---\n');
  writeFileSync(proxiesPath, `# e2e proxies\n${text}\n`);
  return Date.now();
}

const virsh = (...args: string[]) => runChecked('virsh', ['-c', env.libvirtUri, ...args]);
const volumes = async () =>
  (await virsh('vol-list', env.pool))
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean)
    .sort();
const domains = async () => (await virsh('list', '--all', '--name')).split('\n').filter(Boolean);

function state(name: string): ProxyState {
  const p = up?.proxies().find((x) => x.name === name);
  if (!p) throw new Error(`${name} is not in the standalone state`);
  return p;
}

/** The state file once it shows `phase` (it is saved a moment after the status line is printed). */
async function settled(name: string, phase: string): Promise<ProxyState> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const p = state(name);
    if (p.status?.phase === phase) return p;
    if (Date.now() > deadline) throw new Error(`${name}'s saved phase is ${p.status?.phase}, not ${phase}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function domainOf(p: ProxyState): string {
  const m = /^hosts\/e2e(?:-plan)?\/domains\/([a-z0-9-]+)$/.exec(p.status?.providerID ?? '');
  if (!m) throw new Error(`unexpected provider ID ${JSON.stringify(p.status?.providerID)}`);
  return m[1]!;
}

/** The distinct phases of one Proxy, in order. */
function phases(name: string): string[] {
  const out: string[] = [];
  for (const e of up?.events ?? []) if (e.name === name && out.at(-1) !== e.phase) out.push(e.phase);
  return out;
}

function inSubnet(ip: string): boolean {
  const prefix = env.cidr.replace(/\.0\/24$/, '.');
  return ip.startsWith(prefix) && ip !== env.gateway;
}

/** `curl -x http://<ip>:<port> <echo>`: what the echo server answered through the proxy. */
async function curlThrough(ip: string | undefined, target = echo.url): Promise<unknown> {
  // -g: an IPv6 target's brackets are the address, not a URL glob.
  const body = await runChecked('curl', [
    '-sS',
    '-g',
    '--max-time',
    '30',
    '-x',
    `http://${ip}:${PORT}`,
    target,
  ]);
  return JSON.parse(body);
}

/** The pool's members, as `up` records them. */
function poolMembers(): string[] {
  const saved = JSON.parse(readFileSync(join(stateDir, 'pools.json'), 'utf8')) as {
    members: Record<string, { name: string }[]>;
  };
  return (saved.members[POOL_KEY] ?? []).map((m) => m.name);
}

const condition = (p: ProxyState, type: string) => p.status?.conditions?.find((c) => c.type === type);

async function until<T>(what: () => string, timeoutMs: number, fn: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A planned member once Ready with EgressVerified True on both families (IPv4 and IPv6 probed). */
async function verifiedMember(name: string): Promise<ProxyState> {
  await up!.waitForPhase(name, 'Ready', BOOT_TIMEOUT_MS);
  return until(
    () =>
      `${name}'s EgressVerified on both families; it is ${JSON.stringify(condition(state(name), 'EgressVerified'))}`,
    120_000,
    () => {
      const p = state(name);
      const c = condition(p, 'EgressVerified');
      return c?.status === 'True' && c.reason === 'EgressVerified' ? p : undefined;
    },
  );
}

/** Whether `ip` is a host address of the planned block other than its gateway. */
function inBlock(ip: string | undefined): boolean {
  const [base = '', len = '32'] = up4.ipv4Block.split('/');
  const head = base.split('.').slice(0, 3).join('.');
  const last = Number(base.split('.')[3]);
  const m = /^(\d+\.\d+\.\d+)\.(\d+)$/.exec(ip ?? '');
  const size = 2 ** (32 - Number(len));
  return m?.[1] === head && Number(m[2]) > last && Number(m[2]) < last + size - 1 && ip !== up4.ipv4Gateway;
}

const inPrefix = (ip: string | undefined) =>
  (ip ?? '').startsWith(up4.ipv6Prefix.replace(/::\/64$/, ':')) && ip !== up4.ipv6Gateway;

/** The network-config a domain's NoCloud seed carries (read from the ISO in the pool). */
async function seedNetworkConfig(domain: string): Promise<{
  version: number;
  ethernets: Record<string, Record<string, unknown> & { match?: { macaddress?: string } }>;
}> {
  const text = await runChecked('bsdtar', [
    '-xOf',
    join(env.poolPath, `${domain}-seed.iso`),
    'network-config',
  ]);
  return JSON.parse(text);
}

const macOf = async (domain: string) =>
  (await virsh('domiflist', domain)).match(/([0-9a-f]{2}(:[0-9a-f]{2}){5})/)?.[1];

/** The static, v2, NIC-matched config the plan's allocation must produce. */
async function expectPlannedSeed(domain: string, egress: { ipv4?: string; ipv6?: string }) {
  const nc = await seedNetworkConfig(domain);
  expect(nc.version).toBe(2);
  expect(Object.keys(nc.ethernets)).toEqual(['eth0']);
  const nic = nc.ethernets.eth0!;
  expect(nic.match?.macaddress).toBe(await macOf(domain));
  expect(nic['set-name']).toBe('eth0');
  expect(nic.dhcp4).toBe(false);
  expect(nic['accept-ra']).toBe(false);
  expect(nic.addresses).toEqual([`${egress.ipv4}/28`, `${egress.ipv6}/64`]);
  expect([nic.gateway4, nic.gateway6]).toEqual([up4.ipv4Gateway, up4.ipv6Gateway]);
}

/** The pool view `up` printed last with both members, once it shows them distinct. */
function distinctPoolView(members: string[]) {
  return until(
    () =>
      `the pool view of ${members.join(', ')} with DistinctEgress True; last: ${JSON.stringify(poolViews().at(-1))}`,
    120_000,
    () =>
      poolViews().find(
        (v) =>
          v.distinctEgress?.status === 'True' &&
          JSON.stringify(v.members.map((m) => m.name).sort()) === JSON.stringify([...members].sort()),
      ),
  );
}

interface PoolViewLine {
  distinctEgress?: { status: string; message?: string };
  members: { name: string; egressIP?: string; assignedEgress?: { ipv4?: string; ipv6?: string } }[];
}

const poolViews = () =>
  (up?.records ?? []).filter((r) => r.type === 'pool' && r.pool === POOL_KEY) as unknown as PoolViewLine[];

function startUpProcess(): UpProcess {
  return startUp({
    main: env.operatorMain,
    // --demo: once every Proxy is Ready, `up` prints the pool's view (its DistinctEgress verdict
    // and members' egress) as a JSON line; its loopback echo probes only Proxies without a
    // probe, and every Proxy here has one.
    args: [
      '-f',
      proxiesPath,
      '--providers',
      providersPath,
      '--log-level',
      'debug',
      '--gc-grace',
      '1h',
      '--demo',
    ],
    stateDir,
    cwd: dir,
  });
}

async function untilReady(name: string, since: number) {
  const provisioning = await up!.waitForPhase(name, 'Provisioning', BOOT_TIMEOUT_MS);
  const running = await up!.waitForPhase(name, 'Running', BOOT_TIMEOUT_MS);
  const ready: PhaseEvent = await up!.waitForPhase(name, 'Ready', BOOT_TIMEOUT_MS);
  return {
    applyToProvisioning: (provisioning.at - since) / 1000,
    applyToRunning: (running.at - since) / 1000,
    runningToReady: (ready.at - running.at) / 1000,
  };
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  [ssh, images, echo] = await Promise.all([
    startSshd({ dir: join(env.workDir, 'ssh') }),
    startImageServer(env.gateway, env.image.path),
    startEchoServer(env.gateway),
  ]);
  const providers = [
    {
      name: 'hv',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: ssh.privateKeyPath,
        knownHostsFile: ssh.knownHostsPath,
        domainType: 'qemu',
        // The image has the agent; installing it would need a package mirror the guest cannot reach.
        installGuestAgent: false,
        diskSizeGb: 4,
        images: {
          [IMAGE_KEY]: { url: images.url, sha256: env.image.sha256, format: 'qcow2', firmware: 'uefi' },
        },
        machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
        hosts: [
          {
            name: 'e2e',
            address: `${ssh.host}:${ssh.port}`,
            user: ssh.username,
            socket: env.libvirtSocket,
            pool: env.pool,
            bridge: env.bridge,
          },
          {
            // The same hypervisor, as the host whose bridge the block and prefix are routed to.
            name: PLAN_HOST,
            address: `${ssh.host}:${ssh.port}`,
            user: ssh.username,
            socket: env.libvirtSocket,
            pool: env.pool,
            bridge: env.bridge,
            egressPlan: 'routed',
          },
        ],
        egressPlans: {
          routed: {
            ipv4: { ranges: [up4.ipv4Block], gateway: up4.ipv4Gateway },
            ipv6: { prefix: up4.ipv6Prefix, gateway: up4.ipv6Gateway },
          },
        },
      },
    },
  ];
  // The kvm type on the same host and pool: its own metadata namespace, the same image cache.
  const kvm = { name: 'hv-kvm', type: 'kvm', kvm: providers[0]?.kvm2 };
  writeFileSync(providersPath, `${JSON.stringify([...providers, kvm], null, 2)}\n`);
});

afterAll(async () => {
  await up?.stop();
  await Promise.all([images?.close(), echo?.close(), ssh?.stop()]);
});

describe('a Proxy on kvm2, end to end', () => {
  it(
    'goes Provisioning, Running (the guest agent address) and Ready (the probe through Squid)',
    async () => {
      appliedAt = applyProxies('e2e-a');
      up = startUpProcess();
      // The planned pool boots beside e2e-a (not after it), once e2e-a's create has cached the
      // image: both hosts share the pool, so waiting for the marker keeps it one download.
      const marker = `base-${IMAGE_KEY}.qcow2.sha256`;
      const deadline = Date.now() + BOOT_TIMEOUT_MS;
      while (!(await volumes()).includes(marker)) {
        if (Date.now() > deadline) throw new Error(`${marker} never appeared in the pool`);
        await new Promise((r) => setTimeout(r, 500));
      }
      pool = {};
      applyProxies('e2e-a');
      timings.first = await untilReady('e2e-a', appliedAt);
      const seen = phases('e2e-a');
      const at = (p: string) => seen.indexOf(p);
      expect(at('Provisioning')).toBeGreaterThanOrEqual(0);
      expect(at('Provisioning')).toBeLessThan(at('Running'));
      expect(at('Running')).toBeLessThan(at('Ready'));

      const a = await settled('e2e-a', 'Ready');
      const ip = a.status?.ip ?? '';
      expect(inSubnet(ip)).toBe(true);
      // The probe's echo saw the guest's own address as the source: traffic left through Squid.
      expect(a.status?.egressIP).toBe(ip);
      expect(echo.callers).toContain(ip);
      expect(a.status?.healthy).toBe(true);

      // It is the address the guest agent reports (kvm2 asks the agent first) ...
      expect(await virsh('domifaddr', domainOf(a), '--source', 'agent')).toContain(` ${ip}/24`);
      // ... and the one dnsmasq leased to the domain's NIC.
      const mac = (await virsh('domiflist', domainOf(a))).match(/([0-9a-f]{2}(:[0-9a-f]{2}){5})/)?.[1];
      const leases = readFileSync(env.leasesPath, 'utf8');
      expect(leases).toMatch(new RegExp(`\\s${mac}\\s${ip.replace(/\./g, '\\.')}\\s`));
    },
    BOOT_TIMEOUT_MS * 2,
  );

  // The tests below without a boot in them still wait on a guest that shares two cores with the
  // rest of the run: each gets more time than its own steps' deadlines (curl's 30 s, the guest
  // agent's 120 s per exec), so a slow machine fails on the step that hung and names it, not on
  // vitest's 30 s default.
  it(
    'answers curl -x on the Proxy port with the guest as the egress address',
    async () => {
      const ip = state('e2e-a').status?.ip ?? '';
      expect(await curlThrough(ip)).toEqual({ ip });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "ran the seed: cloud-init's instance id and hostname are the ones kvm2 wrote",
    async () => {
      const a = state('e2e-a');
      const domain = domainOf(a);
      const agent = libvirtAgentCall(env.libvirtUri, domain);
      const id = await guestExecVia(agent, '/bin/cat', ['/var/lib/cloud/data/instance-id']);
      expect(id.exitCode).toBe(0);
      expect(id.stdout.trim()).toBe(instanceIdFor(domain, a.uid));
      const host = await guestExecVia(agent, '/bin/hostname', []);
      expect(host.stdout.trim()).toBe(domain);
      // The user-data's Squid config is the one running (its port answered above).
      const conf = await guestExecVia(agent, '/bin/grep', ['-c', SENTINEL, '/etc/squid/squid.conf']);
      expect(conf.stdout.trim()).toBe('1');
    },
    4 * STEP_TIMEOUT_MS,
  );

  it(
    'gives each planned member its own address from the plan, seen by the echo behind the router on both families',
    async () => {
      const members = await until(
        () => `two members in ${POOL}`,
        60_000,
        () => {
          const m = poolMembers();
          return m.length === 2 ? m : undefined;
        },
      );
      const states = await Promise.all(members.map(verifiedMember));
      for (const p of states) {
        const a = p.status?.assignedEgress ?? {};
        expect(inBlock(a.ipv4)).toBe(true);
        expect(inPrefix(a.ipv6)).toBe(true);
        // The proxy answers on its planned address and the probe saw it leave from there.
        expect(p.status?.ip).toBe(a.ipv4);
        expect(p.status?.egressIP).toBe(a.ipv4);
        expect(condition(p, 'EgressVerified')?.message).toContain(a.ipv6);
        expect(await curlThrough(a.ipv4, up4.echoUrl4)).toEqual({ ip: a.ipv4 });
        expect(await curlThrough(a.ipv4, up4.echoUrl6)).toEqual({ ip: a.ipv6 });
        // The seed carried the allocation as a static v2 config matched to the NIC, and the
        // guest applied it: the planned addresses on eth0, no DHCP lease beside them.
        const domain = domainOf(p);
        await expectPlannedSeed(domain, a);
        const agent = libvirtAgentCall(env.libvirtUri, domain);
        const addrs = await guestExecVia(agent, '/sbin/ip', ['-o', 'addr', 'show', 'dev', 'eth0']);
        expect(addrs.stdout).toContain(` ${a.ipv4}/28 `);
        expect(addrs.stdout).toContain(` ${a.ipv6}/64 `);
        expect(addrs.stdout).not.toContain(` ${env.cidr.replace(/0\/24$/, '')}`);
      }
      const [x, y] = states.map((p) => p.status?.assignedEgress ?? {});
      expect(x?.ipv4).not.toBe(y?.ipv4);
      expect(x?.ipv6).not.toBe(y?.ipv6);
      const callers = readFileSync(up4.echoLog, 'utf8');
      for (const a of [x, y]) {
        expect(callers).toContain(`caller ${a?.ipv4}\n`);
        expect(callers).toContain(`caller ${a?.ipv6}\n`);
      }
      // Nothing reached the internet from the DHCP subnet (the router has no route back to it).
      expect(callers).not.toContain(`caller ${env.cidr.replace(/0\/24$/, '')}`);
      const view = await distinctPoolView(members);
      expect(view.members.map((m) => m.egressIP).sort()).toEqual([x?.ipv4, y?.ipv4].sort());
      expect(view.members.map((m) => m.assignedEgress?.ipv6).sort()).toEqual([x?.ipv6, y?.ipv6].sort());
    },
    BOOT_TIMEOUT_MS * 2,
  );

  it(
    'cached the image once, through Content-Length, as a base volume and its marker',
    async () => {
      expect(images.downloads).toHaveLength(1);
      const [d] = images.downloads;
      expect(d?.bytes).toBe(env.image.sizeBytes);
      timings.download = { bytes: d?.bytes ?? 0, seconds: (d?.ms ?? 0) / 1000 };
      const domain = domainOf(state('e2e-a'));
      const planned = poolMembers().map((m) => domainOf(state(m)));
      expect(await volumes()).toEqual(
        [
          `base-${IMAGE_KEY}.qcow2`,
          `base-${IMAGE_KEY}.qcow2.sha256`,
          ...[domain, ...planned].flatMap((d) => [`${d}-seed.iso`, `${d}.qcow2`]),
        ].sort(),
      );
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'deletes a removed Proxy (domain, overlay, seed) while two more come up on the cached image, on kvm2 and on kvm, and a planned member is replaced',
    async () => {
      const domainA = domainOf(state('e2e-a'));
      const [kept = '', replaced = ''] = poolMembers();
      // The replacement boots beside e2e-b and e2e-k; e2e-kp (kvm on the planned host) only
      // shows its seed and goes before its guest gets far.
      pool = { recycle: replaced };
      const changedAt = applyProxies('e2e-b', 'e2e-k', 'e2e-kp');
      const kp = await until(
        () => 'e2e-kp to name its domain',
        10 * 60_000,
        () => up?.proxies().find((p) => p.name === 'e2e-kp' && p.status?.providerID),
      );
      // The status shows the allocation once the guest reports an address; without booting
      // that far, the domain's mark (written in the define, after the seed) holds it.
      const kpDomain = domainOf(kp);
      const deadline = Date.now() + 10 * 60_000;
      while (!(await domains()).includes(kpDomain)) {
        if (Date.now() > deadline) throw new Error(`${kpDomain} was never defined`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const xml = await virsh('dumpxml', kpDomain);
      const kpEgress = {
        ipv4: /egressIPv4="([^"]+)"/.exec(xml)?.[1],
        ipv6: /egressIPv6="([^"]+)"/.exec(xml)?.[1],
      };
      expect(inBlock(kpEgress.ipv4)).toBe(true);
      expect(inPrefix(kpEgress.ipv6)).toBe(true);
      await expectPlannedSeed(kpDomain, kpEgress);
      applyProxies('e2e-b', 'e2e-k');
      await up!.waitForPhase('e2e-kp', 'Deleted', 10 * 60_000);
      expect(await domains()).not.toContain(kpDomain);
      const deleted = await up!.waitForPhase('e2e-a', 'Deleted', 10 * 60_000);
      timings.deleteSeconds = (deleted.at - changedAt) / 1000;
      expect(await domains()).not.toContain(domainA);
      const vols = await volumes();
      expect(vols.filter((v) => v.startsWith(domainA))).toEqual([]);
      expect(vols).toEqual(
        expect.arrayContaining([`base-${IMAGE_KEY}.qcow2`, `base-${IMAGE_KEY}.qcow2.sha256`]),
      );

      [timings.second, timings.kvm] = await Promise.all([
        untilReady('e2e-b', changedAt),
        untilReady('e2e-k', changedAt),
      ]);
      const [b, k] = await Promise.all([settled('e2e-b', 'Ready'), settled('e2e-k', 'Ready')]);
      for (const p of [b, k]) {
        expect(inSubnet(p.status?.ip ?? '')).toBe(true);
        expect(p.status?.egressIP).toBe(p.status?.ip);
      }
      expect(domainOf(b)).not.toBe(domainOf(k));
      // No second download: both reused the base volume and marker cached for the first Proxy.
      expect(images.downloads).toHaveLength(1);
      expect(await curlThrough(k.status?.ip)).toEqual({ ip: k.status?.ip });

      // The replaced member: its successor has a free address of the plan, not the kept one's,
      // and leaves from it.
      const replacement = await until(
        () => `a replacement for ${replaced}`,
        60_000,
        () => poolMembers().find((m) => m !== kept && m !== replaced),
      );
      const r = await verifiedMember(replacement);
      await up!.waitForPhase(replaced, 'Deleted', 10 * 60_000);
      const ra = r.status?.assignedEgress ?? {};
      const ka = state(kept).status?.assignedEgress ?? {};
      expect(inBlock(ra.ipv4)).toBe(true);
      expect(inPrefix(ra.ipv6)).toBe(true);
      expect(ra.ipv4).not.toBe(ka.ipv4);
      expect(ra.ipv6).not.toBe(ka.ipv6);
      expect(r.status?.egressIP).toBe(ra.ipv4);
      expect(await curlThrough(ra.ipv4, up4.echoUrl4)).toEqual({ ip: ra.ipv4 });
      expect(await curlThrough(ra.ipv4, up4.echoUrl6)).toEqual({ ip: ra.ipv6 });
      expect(await curlThrough(ka.ipv4, up4.echoUrl4)).toEqual({ ip: ka.ipv4 });
      expect(poolMembers().sort()).toEqual([kept, replacement].sort());

      // A restarted `up` reads the allocations back from the domains' marks and shows the new
      // pair distinct.
      await up!.stop();
      up = startUpProcess();
      const view = await distinctPoolView([kept, replacement]);
      const assigned = Object.fromEntries(view.members.map((m) => [m.name, m.assignedEgress]));
      expect(assigned).toEqual({ [kept]: ka, [replacement]: ra });
    },
    BOOT_TIMEOUT_MS * 2,
  );

  it(
    'removing the last Proxies leaves only the cached image, and no log holds the cloud-init',
    async () => {
      const members = poolMembers();
      pool = undefined;
      applyProxies();
      await Promise.all(
        ['e2e-b', 'e2e-k', ...members].map((n) => up!.waitForPhase(n, 'Deleted', 10 * 60_000)),
      );
      expect(await domains()).toEqual([]);
      expect(await volumes()).toEqual([`base-${IMAGE_KEY}.qcow2`, `base-${IMAGE_KEY}.qcow2.sha256`]);
      await up!.stop();
      const logs = readFileSync(join(stateDir, 'up.log'), 'utf8');
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(SENTINEL);
      expect(up!.output()).not.toContain(SENTINEL);
      const key = readFileSync(ssh.privateKeyPath, 'utf8').split('\n')[1] ?? '';
      expect(key.length).toBeGreaterThan(20);
      expect(logs).not.toContain(key);
    },
    15 * 60_000,
  );
});

// The same path with the operator in a cluster: the test API server (etcd and kube-apiserver,
// started inside the namespace), the CRDs from config/crd, `egress-proxies run` with the same
// providers config and its own installation id, a Proxy object created through the API.
describe('a Proxy on kvm2 through the in-cluster operator', () => {
  const NS = 'e2e';
  const proxies = `/apis/egress-proxies.dev/v1alpha1/namespaces/${NS}/proxies`;
  let cp: KubeControlPlane;
  let collector: Collector;
  let operator: ReturnType<typeof spawn> | undefined;
  const operatorOutput: string[] = [];

  interface ProxyObject {
    metadata: { uid: string };
    status?: { phase?: string; ip?: string; egressIP?: string; providerID?: string };
  }

  async function getProxy(name: string): Promise<ProxyObject | undefined> {
    const r = await cp.request('GET', `${proxies}/${name}`);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${name}: ${r.status} ${r.body}`);
    return r.json<ProxyObject>();
  }

  async function poll<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${what}; operator output:\n${operatorOutput.join('').slice(-3000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    cp = await startKubeControlPlane();
    // A real collector on the bridge address; the operator sends it every span over OTLP.
    collector = await startCollector({
      host: env.gateway,
      port: await freePort(),
      dir: join(dir, 'collector'),
    });
    const crdDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'config', 'crd');
    const crds = readdirSync(crdDir)
      .filter((f) => f.startsWith('egress-proxies.dev_'))
      .map((f) => parseYaml(readFileSync(join(crdDir, f), 'utf8')) as { metadata: { name: string } });
    for (const crd of crds) {
      const r = await cp.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      if (r.status !== 201) throw new Error(`installing CRD ${crd.metadata.name}: ${r.status} ${r.body}`);
    }
    await poll('the Proxy API to be served', 60_000, async () =>
      (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/proxies')).status === 200
        ? true
        : undefined,
    );
    await cp.ensureNamespace(NS);
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, cp.kubeconfig(), { mode: 0o600 });
    operator = spawn(
      process.execPath,
      [
        env.operatorMain,
        'run',
        '--kubeconfig',
        kubeconfig,
        '--providers-config',
        providersPath,
        '--installation-id',
        'e2e-cluster',
        '--no-leader-election',
        '--http-bind-address',
        `127.0.0.1:${await freePort()}`,
        '--gc-grace',
        '1h',
        '--log-level',
        'debug',
        '--otlp-endpoint',
        collector.endpoint,
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    operator.stdout?.setEncoding('utf8').on('data', (t: string) => operatorOutput.push(t));
    operator.stderr?.setEncoding('utf8').on('data', (t: string) => operatorOutput.push(t));
  }, 10 * 60_000);

  afterAll(async () => {
    if (operator && operator.exitCode === null) {
      const gone = new Promise((r) => operator?.once('exit', r));
      operator.kill('SIGTERM');
      await gone;
    }
    await collector?.stop();
    await cp?.stop();
  });

  it(
    'goes Provisioning to Ready on the cached image, answers curl -x, and its delete removes domain, overlay and seed',
    async () => {
      const name = 'e2e-c';
      // The cached base image goes, so this create downloads it again under the collector's eye.
      for (const v of [`base-${IMAGE_KEY}.qcow2.sha256`, `base-${IMAGE_KEY}.qcow2`])
        await virsh('vol-delete', v, '--pool', env.pool);
      const doc = { ...proxyDocument(name, 'hv'), metadata: { name, namespace: NS } };
      const appliedAt = Date.now();
      const created = await cp.request('POST', proxies, doc);
      expect(created.status).toBe(201);
      const phases: string[] = [];
      const ready = await poll(`${name} Ready`, BOOT_TIMEOUT_MS, async () => {
        const p = await getProxy(name);
        const phase = p?.status?.phase;
        if (phase && phases.at(-1) !== phase) phases.push(phase);
        return phase === 'Ready' ? p : undefined;
      });
      const readyAt = Date.now();
      expect(phases).toContain('Provisioning');
      const ip = ready.status?.ip ?? '';
      expect(inSubnet(ip)).toBe(true);
      expect(ready.status?.egressIP).toBe(ip);

      // The reconciler's Events tell the whole sequence, including a Running that may pass quickly.
      const events = (
        await cp.request('GET', `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name=${name}`)
      ).json<{ items: { reason: string }[] }>().items;
      const reasons = events.map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['Created', 'Running', 'Ready']));

      expect(await curlThrough(ip)).toEqual({ ip });
      // The standalone run's download, and this one's after the cache was cleared.
      expect(images.downloads).toHaveLength(2);

      // What the collector stored: reconcile -> provider.create in one trace, with kvm2's dial,
      // download and libvirt calls below the create.
      const chain = await poll('the create trace in the collector', 60_000, async () =>
        findSpanChain(
          collector.spans(),
          ['reconcile', 'provider.create'],
          (s) => s.attributes['proxy.name'] === name,
        ),
      );
      const below = descendantsOf(collector.spans(), chain[1]!).map((s) => s.name);
      expect(below).toEqual(expect.arrayContaining(['kvm2.dial', 'kvm2.download']));
      expect(below.filter((n) => /^kvm2\.[A-Z]/.test(n)).length).toBeGreaterThan(0);
      expect(below.every((n) => n.startsWith('kvm2.'))).toBe(true);

      const domain = domainOf({ name, uid: ready.metadata.uid, status: ready.status ?? {} });
      expect(await domains()).toContain(domain);
      const del = await cp.request('DELETE', `${proxies}/${name}`);
      expect([200, 202]).toContain(del.status);
      const deleteAt = Date.now();
      await poll(`${name} gone`, 10 * 60_000, async () =>
        (await getProxy(name)) === undefined ? true : undefined,
      );
      expect(await domains()).not.toContain(domain);
      expect(await volumes()).toEqual([`base-${IMAGE_KEY}.qcow2`, `base-${IMAGE_KEY}.qcow2.sha256`]);
      expect(operatorOutput.join('')).not.toContain(SENTINEL);

      // Every step passed: the measurements of this run go to the report.
      const result: E2eTimings = {
        date: new Date().toISOString().slice(0, 10),
        image: { bytes: env.image.sizeBytes },
        download: timings.download!,
        first: timings.first!,
        second: timings.second!,
        kvm: timings.kvm!,
        deleteSeconds: timings.deleteSeconds!,
        inCluster: {
          applyToReady: (readyAt - appliedAt) / 1000,
          deleteSeconds: (Date.now() - deleteAt) / 1000,
        },
      };
      writeFileSync(env.timingsOut, `${JSON.stringify(result, null, 2)}\n`);
    },
    BOOT_TIMEOUT_MS * 2,
  );
});
