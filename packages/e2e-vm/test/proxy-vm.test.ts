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
      cloudInit: { inline: squidCloudInit({ port: PORT, allow: env.cidr, sentinel: SENTINEL }) },
      probe: { target: echo.url, interval: '5s', timeout: '5s', retries: 0 },
    },
  };
}

/** JSON is YAML: one document per Proxy; `e2e-k*` Proxies use the kvm provider type. */
function applyProxies(...names: string[]): number {
  const text = names
    .map((n) => JSON.stringify(proxyDocument(n, n.startsWith('e2e-k') ? 'hv-kvm' : 'hv')))
    .join('\n---\n');
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
  const m = /^hosts\/e2e\/domains\/([a-z0-9-]+)$/.exec(p.status?.providerID ?? '');
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
async function curlThrough(ip: string | undefined): Promise<unknown> {
  const body = await runChecked('curl', ['-sS', '--max-time', '30', '-x', `http://${ip}:${PORT}`, echo.url]);
  return JSON.parse(body);
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
        ],
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
      up = startUp({
        main: env.operatorMain,
        args: ['-f', proxiesPath, '--providers', providersPath, '--log-level', 'debug', '--gc-grace', '1h'],
        stateDir,
        cwd: dir,
      });
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

  it('answers curl -x on the Proxy port with the guest as the egress address', async () => {
    const ip = state('e2e-a').status?.ip ?? '';
    expect(await curlThrough(ip)).toEqual({ ip });
  });

  it("ran the seed: cloud-init's instance id and hostname are the ones kvm2 wrote", async () => {
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
  });

  it('cached the image once, through Content-Length, as a base volume and its marker', async () => {
    expect(images.downloads).toHaveLength(1);
    const [d] = images.downloads;
    expect(d?.bytes).toBe(env.image.sizeBytes);
    timings.download = { bytes: d?.bytes ?? 0, seconds: (d?.ms ?? 0) / 1000 };
    const domain = domainOf(state('e2e-a'));
    expect(await volumes()).toEqual(
      [
        `base-${IMAGE_KEY}.qcow2`,
        `base-${IMAGE_KEY}.qcow2.sha256`,
        `${domain}-seed.iso`,
        `${domain}.qcow2`,
      ].sort(),
    );
  });

  it(
    'deletes a removed Proxy (domain, overlay, seed) while two more come up on the cached image, on kvm2 and on kvm',
    async () => {
      const domainA = domainOf(state('e2e-a'));
      const changedAt = applyProxies('e2e-b', 'e2e-k');
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
    },
    BOOT_TIMEOUT_MS * 2,
  );

  it(
    'removing the last Proxies leaves only the cached image, and no log holds the cloud-init',
    async () => {
      applyProxies();
      await Promise.all([
        up!.waitForPhase('e2e-b', 'Deleted', 10 * 60_000),
        up!.waitForPhase('e2e-k', 'Deleted', 10 * 60_000),
      ]);
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
