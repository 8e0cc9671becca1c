import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatMark } from '@egress-proxies/conformance/reference';
import { instanceName } from '@egress-proxies/contract';
import { ProvidersConfigError } from '@egress-proxies/provider-utils';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZER } from '../src/api/group.js';
import type { ProxyObject } from '../src/api/proxy.js';
import { startOperator } from '../src/cluster/operator.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds, waitFor } from './support/cluster.js';
import { startEchoServer, startForwardProxy } from './support/forward-proxy.js';
import {
  createProxy,
  getProxy,
  listEvents,
  type OperatorHarness,
  patchProxySpec,
  proxiesPath,
  ReferenceBackends,
  startTestOperator,
  TOKEN,
  writeProvidersConfig,
} from './support/harness.js';
import { toolEnv } from './support/helm.js';

const NS = 'team-a';
let cp: KubeControlPlane;
let fwd: Awaited<ReturnType<typeof startForwardProxy>>;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
const backends = new ReferenceBackends();
let h: OperatorHarness;

const probe = () => ({ target: echo.url, interval: '30s', timeout: '2s', retries: 0 });
const placement = { zone: 'alpha', machineType: 'small', image: 'debian-12' };
const phaseOf = async (name: string) => (await getProxy(cp, NS, name))?.status?.phase;
const waitPhase = (name: string, phase: string, timeoutMs = 20_000) =>
  waitFor(
    `${name} ${phase}`,
    async () => ((await phaseOf(name)) === phase ? getProxy(cp, NS, name) : undefined),
    timeoutMs,
  ) as Promise<ProxyObject>;

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace(NS);
  await cp.ensureNamespace('egress-proxies-system');
  fwd = await startForwardProxy();
  echo = await startEchoServer();
  h = await startTestOperator(cp, backends, { proxyPort: fwd.port }, { providers: ['ref'] });
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  await h?.stop();
  await fwd?.stop();
  await echo?.stop();
  await cp?.stop();
});

describe('operator against a real API server', () => {
  it('takes a Proxy through Provisioning, Running and Ready, probing through the proxy', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(cp.kubeconfig());
    const phases: string[] = [];
    const watch = await new Watch(kc).watch(
      proxiesPath(NS),
      {},
      (_type, obj: ProxyObject) => {
        const p = obj.status?.phase;
        if (obj.metadata.name === 'px-flow' && p && phases.at(-1) !== p) phases.push(p);
      },
      () => {},
    );
    try {
      await createProxy(cp, NS, 'px-flow', { provider: 'ref', placement, probe: probe() });
      const ready = await waitPhase('px-flow', 'Ready');
      expect(phases).toEqual(['Pending', 'Provisioning', 'Running', 'Ready']);
      expect(ready.metadata.finalizers).toContain(FINALIZER);
      expect(ready.status).toMatchObject({ healthy: true, egressIP: '127.0.0.1', observedGeneration: 1 });
      expect(ready.status?.providerID).toBe(`hosts/alpha/domains/${instanceName(NS, 'px-flow')}`);
      expect(ready.status?.ip).toMatch(/^192\.0\.2\./);
      expect(fwd.requests).toContain(`GET ${echo.url}`);
      const reasons = (await listEvents(cp, NS, 'px-flow')).map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['Created', 'Running', 'Ready']));
      // The instance carries the owner's uid and this installation's id.
      const dom = backends
        .backend('ref')
        .domains()
        .find((d) => d.name === instanceName(NS, 'px-flow'));
      expect(dom?.metadata).toContain(`uid="${ready.metadata.uid}"`);
      expect(dom?.metadata).toContain('installation="install-A"');
      // Settled: further passes before the probe interval write nothing.
      const rv = (await getProxy(cp, NS, 'px-flow'))?.metadata.resourceVersion;
      await new Promise((r) => setTimeout(r, 700));
      expect((await getProxy(cp, NS, 'px-flow'))?.metadata.resourceVersion).toBe(rv);
    } finally {
      watch.abort();
    }
  });

  it('shows the printer columns in kubectl get px and kubectl get ph', async () => {
    const kubeconfig = join(h.dir, 'kubeconfig');
    writeFileSync(kubeconfig, cp.kubeconfig());
    const kubectl = (...args: string[]) => {
      // Its discovery cache in the test's dir, not the home directory.
      const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
        encoding: 'utf8',
        env: toolEnv(h.dir),
      });
      if (r.error || r.status !== 0)
        throw new Error(`kubectl ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s{2,}/));
    };
    const px = kubectl('get', 'px', 'px-flow', '-n', NS);
    expect(px[0]).toEqual(['NAME', 'MODE', 'PROVIDER', 'PHASE', 'IP', 'HEALTHY', 'AGE']);
    expect(px[1]?.slice(0, 6)).toEqual([
      'px-flow',
      'Managed',
      'ref',
      'Ready',
      expect.stringMatching(/^192\.0\.2\./),
      'true',
    ]);
    const wide = kubectl('get', 'px', 'px-flow', '-n', NS, '-o', 'wide');
    expect(wide[0]).toEqual([
      'NAME',
      'MODE',
      'PROVIDER',
      'PHASE',
      'IP',
      'HEALTHY',
      'READY',
      'EGRESS IP',
      'MESSAGE',
      'AGE',
    ]);
    expect(wide[1]?.[6]).toBe('True');
    expect(wide[1]?.[7]).toBe('127.0.0.1');
    // Scripts wait on the Ready condition, not on the phase text.
    const waited = kubectl('wait', '--for=condition=Ready', 'px/px-flow', '-n', NS, '--timeout=60s');
    expect(waited.flat().join(' ')).toContain('condition met');
    await waitFor(
      'ProviderHealth ref',
      async () =>
        (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref')).status === 200,
    );
    const ph = kubectl('get', 'ph', 'ref');
    expect(ph[0]).toEqual(['NAME', 'TYPE', 'READY', 'TARGETS', 'LAST CHECK']);
    expect(ph[1]?.slice(0, 4)).toEqual(['ref', 'local', 'true', '3/3']);
    await waitFor('ProviderHealth ref has its Ready condition', async () => {
      const r = await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref');
      return JSON.stringify(r.body ?? '').includes('AllTargetsReady');
    });
    const phWait = kubectl('wait', '--for=condition=Ready', 'ph/ref', '--timeout=60s');
    expect(phWait.flat().join(' ')).toContain('condition met');
  });

  it('deletes the instance and then removes the finalizer', async () => {
    await createProxy(cp, NS, 'px-del', { provider: 'ref', placement });
    await waitPhase('px-del', 'Ready');
    const name = instanceName(NS, 'px-del');
    expect(
      backends
        .backend('ref')
        .domains()
        .some((d) => d.name === name),
    ).toBe(true);
    const r = await cp.request('DELETE', proxiesPath(NS, 'px-del'));
    expect(r.status).toBe(200);
    await waitFor('px-del gone', async () => (await getProxy(cp, NS, 'px-del')) === undefined);
    expect(
      backends
        .backend('ref')
        .domains()
        .some((d) => d.name === name),
    ).toBe(false);
    expect(
      backends
        .backend('ref')
        .volumes()
        .some((v) => v.owner === name),
    ).toBe(false);
  });

  it('replaces the instance when the spec changes', async () => {
    await createProxy(cp, NS, 'px-repl', { provider: 'ref', placement });
    const before = await waitPhase('px-repl', 'Ready');
    await patchProxySpec(cp, NS, 'px-repl', { placement: { ...placement, zone: 'beta' } });
    const after = await waitFor('px-repl on beta', async () => {
      const p = await getProxy(cp, NS, 'px-repl');
      return p?.status?.phase === 'Ready' && p.status.providerID?.startsWith('hosts/beta/') ? p : undefined;
    });
    expect(after.status?.providerID).not.toBe(before.status?.providerID);
    expect(after.status?.observedGeneration).toBe(2);
    const name = instanceName(NS, 'px-repl');
    expect(
      backends
        .backend('ref')
        .domains()
        .filter((d) => d.name === name)
        .map((d) => d.host),
    ).toEqual(['beta']);
    expect((await listEvents(cp, NS, 'px-repl')).map((e) => e.reason)).toContain('Replacing');
  });

  it('recreates an instance that vanished behind its back', async () => {
    await createProxy(cp, NS, 'px-gone', { provider: 'ref', placement, probe: probe() });
    const before = await waitPhase('px-gone', 'Ready');
    const backend = backends.backend('ref');
    const name = instanceName(NS, 'px-gone');
    backend.removeDomainOutOfBand('alpha', name);
    // Nothing would look before the probe interval; a label change triggers a reconcile.
    await cp.request(
      'PATCH',
      proxiesPath(NS, 'px-gone'),
      { metadata: { labels: { poke: '1' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor('InstanceGone event', async () =>
      (await listEvents(cp, NS, 'px-gone')).some((e) => e.reason === 'InstanceGone'),
    );
    // The event is written before the status that forgets the instance, so the phase can still
    // read Ready from before; one read must show the recreated instance, Ready, with its ID.
    const after = await waitFor('px-gone Ready again with its instance', async () => {
      const p = await getProxy(cp, NS, 'px-gone');
      const recreated = backend.domains().some((d) => d.name === name);
      return recreated && p?.status?.phase === 'Ready' && p.status.providerID ? p : undefined;
    });
    expect(after.status?.providerID).toBe(before.status?.providerID);
    expect(backend.domains().filter((d) => d.name === name)).toHaveLength(1);
  });

  it('latches a Permanent error as Failed until the spec changes', async () => {
    await createProxy(cp, NS, 'px-perm', {
      provider: 'ref',
      placement: { ...placement, machineType: 'huge' },
    });
    const failed = await waitPhase('px-perm', 'Failed');
    expect(failed.status?.message).toContain('unknown machine type "huge"');
    const backend = backends.backend('ref');
    const calls = () => backend.calls().filter((c) => c.instance === instanceName(NS, 'px-perm')).length;
    const rv = failed.metadata.resourceVersion;
    const n = calls();
    await new Promise((r) => setTimeout(r, 1500));
    // Latched: no retries reach the backend and the object is not rewritten.
    expect(calls()).toBe(n);
    expect((await getProxy(cp, NS, 'px-perm'))?.metadata.resourceVersion).toBe(rv);
    await patchProxySpec(cp, NS, 'px-perm', { placement });
    await waitPhase('px-perm', 'Ready');
  });

  it('backs off on QuotaExceeded with its condition, and recovers when capacity returns', async () => {
    const backend = backends.backend('ref');
    backend.setPoolFull(true, 'gamma');
    try {
      await createProxy(cp, NS, 'px-quota', { provider: 'ref', placement: { ...placement, zone: 'gamma' } });
      const p = await waitFor('QuotaExceeded condition', async () => {
        const x = await getProxy(cp, NS, 'px-quota');
        return x?.status?.conditions?.find((c) => c.type === 'QuotaExceeded' && c.status === 'True')
          ? x
          : undefined;
      });
      expect(p.status?.phase).not.toBe('Failed');
      expect((await listEvents(cp, NS, 'px-quota')).map((e) => e.reason)).toContain('QuotaExceeded');
    } finally {
      backend.setPoolFull(false, 'gamma');
    }
    const ready = await waitPhase('px-quota', 'Ready');
    expect(ready.status?.conditions?.find((c) => c.type === 'QuotaExceeded')?.status).toBe('False');
  });

  it('collects an old orphan of this installation and leaves another installation’s alone', async () => {
    const backend = backends.backend('ref');
    const old = new Date(Date.now() - 3_600_000);
    const seed = (name: string, installation: string, createdAt: Date) =>
      backend.seedDomain({
        host: 'alpha',
        name,
        state: 'running',
        metadata: formatMark({ uid: `uid-${name}`, createdAt, installation }),
      });
    seed('proxy-00000000000000a1', 'install-A', old);
    seed('proxy-00000000000000b2', 'install-B', old);
    seed('proxy-00000000000000c3', 'install-A', new Date());
    const [report] = await h.op.collectGarbage();
    expect(report?.deleted).toEqual([{ id: 'hosts/alpha/domains/proxy-00000000000000a1', kind: 'instance' }]);
    expect(report?.kept.foreign).toBeGreaterThanOrEqual(1);
    expect(report?.kept.young).toBe(1);
    const names = backend.domains().map((d) => d.name);
    expect(names).not.toContain('proxy-00000000000000a1');
    expect(names).toEqual(expect.arrayContaining(['proxy-00000000000000b2', 'proxy-00000000000000c3']));
    // Live Proxies' instances are untouched.
    expect(names).toContain(instanceName(NS, 'px-flow'));
    const events = await listEvents(cp, 'default', 'ref');
    expect(events.map((e) => e.reason)).toContain('OrphanDeleted');
    const metrics = await h.op.metrics.registry.metrics();
    expect(metrics).toMatch(/egress_proxies_gc_deletions_total\{provider="ref",kind="instance"\} 1/);
  });

  it('writes ProviderHealth with one entry per Checker target', async () => {
    const r = await waitFor('ProviderHealth ref', async () => {
      const x = await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref');
      return x.status === 200 && x.json<{ status?: { targets?: unknown[] } }>().status?.targets
        ? x
        : undefined;
    });
    const st = r.json<{
      status: {
        type: string;
        ready: boolean;
        summary: string;
        targets: { target: string; ready: boolean }[];
      };
    }>().status;
    expect(st.type).toBe('local');
    expect(st.ready).toBe(true);
    expect(st.summary).toBe('3/3');
    expect(st.targets.map((t) => t.target)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('picks up a changed providers config without a restart and keeps the old one when the new one is bad', async () => {
    await createProxy(cp, NS, 'px-cfg', { provider: 'ref2', placement });
    const failed = await waitPhase('px-cfg', 'Failed');
    expect(failed.status?.message).toBe('provider "ref2" is not configured (configured: ref)');
    writeFileSync(h.configPath, '- name: ref\n  type: lokal\n');
    await h.op.reloadConfig();
    expect(h.op.providers.names()).toEqual(['ref']);
    expect(await h.op.metrics.registry.metrics()).toMatch(
      /egress_proxies_config_reloads_total\{result="rejected"\} 1/,
    );
    writeProvidersConfig(h.configPath, ['ref', 'ref2']);
    // The watcher notices on its own (no explicit reload).
    await waitPhase('px-cfg', 'Ready');
    expect(h.op.providers.names()).toEqual(['ref', 'ref2']);
    await waitFor(
      'ProviderHealth ref2',
      async () =>
        (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref2')).status === 200,
    );
  });

  it('passes cloud-init from a Secret to the provider and nowhere else', async () => {
    const secret = '#cloud-config\nchpasswd: {list: "root:hunter2-cloud-secret"}\n';
    const r = await cp.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'px-ci' },
      stringData: { 'user-data': secret },
    });
    expect(r.status).toBe(201);
    await createProxy(cp, NS, 'px-ci', {
      provider: 'ref',
      placement,
      cloudInit: { secretRef: { name: 'px-ci' } },
    });
    await waitPhase('px-ci', 'Ready');
    const seed = backends
      .backend('ref')
      .volumes()
      .find((v) => v.owner === instanceName(NS, 'px-ci') && v.kind === 'seed');
    expect(Buffer.from(seed?.content ?? []).toString()).toContain('hunter2-cloud-secret');
    const all = await cp.request('GET', proxiesPath(NS, 'px-ci'));
    const events = await cp.request('GET', `/api/v1/namespaces/${NS}/events`);
    expect(all.body + events.body).not.toContain('hunter2');
  });

  it('keeps the finalizer while delete fails and says why, then finishes', async () => {
    await createProxy(cp, NS, 'px-stuck', { provider: 'ref', placement: { ...placement, zone: 'gamma' } });
    await waitPhase('px-stuck', 'Ready');
    const backend = backends.backend('ref');
    backend.setUnreachable(true, 'gamma');
    try {
      expect((await cp.request('DELETE', proxiesPath(NS, 'px-stuck'))).status).toBe(200);
      const p = await waitFor('delete failure reported', async () => {
        const x = await getProxy(cp, NS, 'px-stuck');
        return x?.status?.message?.includes('delete of instance') ? x : undefined;
      });
      expect(p.status?.phase).toBe('Deleting');
      expect(p.metadata.finalizers).toContain(FINALIZER);
      // Retries count on one Event instead of making a new one each time.
      await waitFor('DeleteFailed counted twice', async () => {
        const failed = (await listEvents(cp, NS, 'px-stuck')).filter((e) => e.reason === 'DeleteFailed');
        return failed.length === 1 && (failed[0]?.count ?? 0) >= 2;
      });
    } finally {
      backend.setUnreachable(false, 'gamma');
    }
    await waitFor('px-stuck gone', async () => (await getProxy(cp, NS, 'px-stuck')) === undefined);
    expect(backend.domains().some((d) => d.name === instanceName(NS, 'px-stuck'))).toBe(false);
  });

  it('removes the finalizer without deleting the instance when a human sets the annotation', async () => {
    await createProxy(cp, NS, 'px-force', { provider: 'ref', placement: { ...placement, zone: 'beta' } });
    await waitPhase('px-force', 'Ready');
    const backend = backends.backend('ref');
    backend.setUnreachable(true, 'beta');
    try {
      await cp.request('DELETE', proxiesPath(NS, 'px-force'));
      await waitFor(
        'delete failing',
        async () => (await getProxy(cp, NS, 'px-force'))?.status?.phase === 'Deleting',
      );
      const patch = await cp.request(
        'PATCH',
        proxiesPath(NS, 'px-force'),
        { metadata: { annotations: { 'egress-proxies.dev/force-remove-finalizer': 'true' } } },
        { contentType: 'application/merge-patch+json' },
      );
      expect(patch.status).toBe(200);
      await waitFor('px-force gone', async () => (await getProxy(cp, NS, 'px-force')) === undefined);
    } finally {
      backend.setUnreachable(false, 'beta');
    }
    // Left for orphan GC, which knows it by its mark.
    expect(backend.domains().some((d) => d.name === instanceName(NS, 'px-force'))).toBe(true);
  });

  it('deletes the ProviderHealth of a provider dropped from the config', async () => {
    const backend2 = backends.backend('ref2');
    backend2.breakHost('alpha', 'pool-missing');
    writeProvidersConfig(h.configPath, ['ref', 'ref2']);
    // A changed entry is checked at once: make ref2's config differ so it is rebuilt.
    writeFileSync(h.configPath, `${readFileSync(h.configPath, 'utf8')}    engine: node\n`);
    await h.op.reloadConfig();
    await waitFor('ref2 health shows the broken pool', async () => {
      const r = await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref2');
      const st = r.json<{ status?: { summary?: string; targets?: { target: string; reason: string }[] } }>()
        .status;
      return st?.summary === '2/3' && st.targets?.[0]?.reason === 'PoolNotFound';
    });
    backend2.breakHost('alpha', undefined);
    writeProvidersConfig(h.configPath, ['ref']);
    await h.op.reloadConfig();
    await waitFor(
      'ProviderHealth ref2 deleted',
      async () =>
        (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref2')).status === 404,
    );
    expect((await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/providerhealths/ref')).status).toBe(
      200,
    );
  });

  it('never writes the provider credential into Proxies or events', async () => {
    const all = await cp.request('GET', proxiesPath(NS));
    const events = await cp.request('GET', `/api/v1/namespaces/${NS}/events`);
    expect(all.body + events.body).not.toContain(TOKEN);
  });
});

describe('providers config at start', () => {
  it('rejects a bad config file naming the file and the bad path', async () => {
    const err = await startTestOperator(
      cp,
      backends,
      { proxyPort: fwd.port },
      {
        configText:
          '- name: ref\n  type: local\n  local:\n    stateDir: /var/lib/x\n    portRange: {min: 9, max: 2}\n',
      },
    ).catch((e: unknown) => e);
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    const message = (err as Error).message;
    expect(message).toMatch(/invalid providers config \/.*providers\.yaml/);
    expect(message).toContain('providers[0].local.portRange: min 9 must be <= max 2');
  });

  it('refuses to watch one namespace with the cluster-wide installation id', async () => {
    await expect(
      startTestOperator(
        cp,
        backends,
        { proxyPort: fwd.port },
        { watchNamespace: NS, installation: undefined },
      ),
    ).rejects.toThrow(
      'watching one namespace (team-a) needs its own installation id: pass --installation-id',
    );
  });

  it('rejects a missing config file naming the path', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(cp.kubeconfig());
    await expect(
      startOperator({
        kubeConfig: kc,
        configPath: '/nonexistent/providers.yaml',
        operatorNamespace: 'x',
        installation: 'i',
      }),
    ).rejects.toThrow('/nonexistent/providers.yaml');
  });
});
