import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProviderFactory } from '@egress-proxies/provider-local';
import { ProviderRegistry } from '@egress-proxies/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpLogger } from '../src/domain/op-logger.js';
import { down } from '../src/standalone/down.js';
import { startEchoServer } from '../src/standalone/echo-server.js';
import { type RunningStandalone, startStandalone } from '../src/standalone/standalone.js';
import { readState } from '../src/standalone/state-file.js';
import { getThroughProxy } from './support/forward-proxy.js';

// The standalone reconciler over the real local provider (Node engine): real proxy processes,
// probed through themselves against a loopback echo server.
const dir = mkdtempSync(join(tmpdir(), 'ep-standalone-'));
const stateDir = join(dir, 'state');
const providersPath = join(dir, 'providers.yaml');
const proxiesPath = join(dir, 'proxies.yaml');
const instancesDir = join(dir, 'local', 'instances');
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let sa: RunningStandalone | undefined;

const doc = (name: string, extra = '') => `apiVersion: egress-proxies.dev/v1alpha1
kind: Proxy
metadata: {name: ${name}}
spec:
  provider: local${extra}
  probe: {target: "${echo.url}", interval: 30s, timeout: 2s, retries: 1}
`;
const writeProxies = (...docs: string[]) => writeFileSync(proxiesPath, docs.join('---\n'));

const start = (http?: { host: string; port: number }) =>
  startStandalone({
    ...(http ? { http } : {}),
    proxyPaths: [proxiesPath],
    providersPath,
    stateDir,
    debounceMs: 50,
    rescanMs: 300,
    pollIntervalMs: 200,
    failedProbeRetryMs: 300,
    rateLimiter: { tiers: { transient: { baseMs: 100, maxMs: 1000 } } },
  });

async function waitFor<T>(what: string, fn: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) {
      const st = sa?.store.records().map((r) => `${r.name}: ${r.status?.phase} ${r.status?.message ?? ''}`);
      throw new Error(`timed out waiting for ${what}; proxies: ${JSON.stringify(st)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const record = (name: string) => sa?.store.records().find((r) => r.name === name);
const ready = (name: string, generation = 1) =>
  waitFor(`${name} Ready at generation ${generation}`, () => {
    const r = record(name);
    return r?.status?.phase === 'Ready' && r.status.observedGeneration === generation && r.endpoint
      ? r
      : undefined;
  });

/** GET the echo server through the proxy at host:port; the body the target answered. */
const through = (host: string, port: number) => getThroughProxy(`http://${host}:${port}`, echo.url);

beforeAll(async () => {
  echo = await startEchoServer();
  writeFileSync(
    providersPath,
    `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24100, max: 24199}, engine: node}\n`,
  );
});

afterAll(async () => {
  await sa?.stop();
  // Whatever a failed step left running goes: delete by installation, like `down`.
  for (const d of [stateDir, join(dir, 'other-state')])
    if (existsSync(d)) await down({ providersPath, stateDir: d }).catch(() => {});
  await echo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('standalone mode over provider-local', () => {
  it('creates proxies from the file, probes through them and reports Ready with their address', async () => {
    writeProxies(doc('alpha'), doc('beta'));
    sa = await start({ host: '127.0.0.1', port: 0 });
    const a = await ready('alpha');
    const b = await ready('beta');
    expect(a.endpoint?.host).toBe('127.0.0.1');
    expect(a.endpoint?.port).toBeGreaterThanOrEqual(24100);
    expect(a.endpoint?.port).toBeLessThanOrEqual(24199);
    expect(a.endpoint?.port).not.toBe(b.endpoint?.port);
    expect(a.status?.egressIP).toBe('127.0.0.1');
    const r = await through(a.endpoint!.host, a.endpoint!.port);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ip: '127.0.0.1' });
    // The state file says the same for `status` in another shell.
    const state = readState(stateDir)!;
    await waitFor('state file Ready', () =>
      readState(stateDir)!.proxies.filter((p) => p.status?.phase === 'Ready').length === 2 ? true : undefined,
    );
    expect(state.installation).toBe(sa.installation);
    expect(readdirSync(instancesDir).sort()).toHaveLength(2);
    // The cluster's metrics, when asked for.
    const metrics = await (await fetch(`http://127.0.0.1:${sa.httpPort}/metrics`)).text();
    expect(metrics).toMatch(/egress_proxies_proxies\{phase="Ready"\} 2/);
    expect(metrics).toMatch(
      /egress_proxies_provider_operation_duration_seconds_count\{provider="local",operation="create"\} 2/,
    );
  });

  it('reports a bad document by file, index and path while the others keep working', async () => {
    writeProxies(doc('alpha'), doc('beta'), doc('gamma', '\n  port: 70000'));
    await waitFor('the issue', () => (sa!.store.issues().length > 0 ? true : undefined));
    expect(sa!.store.issues()).toEqual([
      { file: proxiesPath, index: 2, path: 'spec.port', message: expect.stringContaining('65535') },
    ]);
    expect(record('gamma')).toBeUndefined();
    expect(record('alpha')?.status?.phase).toBe('Ready');
  });

  it('replaces the instance on a spec change and reaches Ready again', async () => {
    const before = record('beta')!;
    writeProxies(doc('alpha'), doc('beta', '\n  placement: {machineType: bigger}'));
    const after = await ready('beta', 2);
    expect(after.status?.instanceGeneration).toBe(2);
    // Replaced: the old instance deleted, then a second create under the same name.
    expect(sa!.store.events.filter((e) => e.key === 'default/beta' && e.reason === 'Created')).toHaveLength(
      2,
    );
    expect(after.status?.instanceSpecHash).not.toBe(before.status?.instanceSpecHash);
    expect((await through(after.endpoint!.host, after.endpoint!.port)).status).toBe(200);
  });

  it('deletes through the provider a Proxy removed from the files, then forgets it', async () => {
    const beta = record('beta')!;
    writeProxies(doc('alpha'));
    await waitFor('beta gone', () => (record('beta') ? undefined : true));
    expect(readdirSync(instancesDir)).toHaveLength(1);
    await expect(through(beta.endpoint!.host, beta.endpoint!.port)).rejects.toThrow();
  });

  it('leaves proxies running on stop and picks them up on restart without creating again', async () => {
    const alpha = record('alpha')!;
    await sa!.stop();
    sa = undefined;
    expect((await through(alpha.endpoint!.host, alpha.endpoint!.port)).status).toBe(200);
    sa = await start();
    const again = await ready('alpha');
    expect(again.uid).toBe(alpha.uid);
    expect(again.status?.providerID).toBe(alpha.status?.providerID);
    expect(again.endpoint).toEqual(alpha.endpoint);
    expect(sa.store.events.map((e) => e.reason)).not.toContain('Created');
  });

  it('down deletes what this installation created, and nothing else', async () => {
    const alphaId = record('alpha')!.status!.providerID!;
    await sa!.stop();
    sa = undefined;
    // Another installation (another state dir) with its own proxy on the same provider.
    const otherState = join(dir, 'other-state');
    const otherFile = join(dir, 'other.yaml');
    writeFileSync(otherFile, doc('zeta'));
    const other = await startStandalone({ proxyPaths: [otherFile], providersPath, stateDir: otherState });
    try {
      await waitFor('zeta Ready', () =>
        other.store.records().find((r) => r.name === 'zeta' && r.status?.phase === 'Ready'),
      );
    } finally {
      await other.stop();
    }
    expect(readdirSync(instancesDir)).toHaveLength(2);

    const r = await down({ providersPath, stateDir });
    expect(r.errors).toEqual([]);
    expect(r.deleted).toEqual([alphaId]);
    expect(readdirSync(instancesDir)).toHaveLength(1);
    expect(readState(stateDir)?.proxies).toEqual([]);

    const r2 = await down({ providersPath, stateDir: otherState });
    expect(r2.deleted).toHaveLength(1);
    expect(readdirSync(instancesDir)).toEqual([]);
  });

  it('refuses a providers reload naming a type this build lacks, and keeps the old config', async () => {
    const base = join(dir, 'reload');
    mkdirSync(base, { recursive: true });
    const path = join(base, 'providers.yaml');
    const local = `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24200, max: 24299}, engine: node}\n`;
    writeFileSync(path, local);
    writeFileSync(join(base, 'proxies.yaml'), '');
    const errors: string[] = [];
    const noop = () => {};
    const logger: OpLogger = {
      info: noop,
      warn: noop,
      debug: noop,
      error: (obj: unknown) => errors.push(JSON.stringify(obj)),
      child: () => logger,
    };
    const only = await startStandalone({
      logger,
      proxyPaths: [join(base, 'proxies.yaml')],
      providersPath: path,
      stateDir: join(base, 'state'),
      registry: new ProviderRegistry().register(localProviderFactory),
    });
    try {
      // A valid kvm2 entry, but this build (the registry above) has no kvm2 factory.
      writeFileSync(
        path,
        `${local}- name: hv\n  type: kvm2\n  kvm2: {sshKeyFile: /k, insecureIgnoreHostKey: true, machineTypes: {s: {vcpus: 1, memoryMiB: 512}}, hosts: [{name: h, address: 'h:22', user: u, bridge: br0}]}\n`,
      );
      await only.reloadConfig();
      expect(only.providers.names()).toEqual(['local']);
      // Refused up front with the entry's path, as the cluster does, not by a failing factory.
      expect(errors.join('\n')).toMatch(
        /providers\[1\]\.type: unknown type \\"kvm2\\" \(known: local; a provider from another package names it with module:\)/,
      );
      expect(await only.metrics.registry.metrics()).toMatch(
        /egress_proxies_config_reloads_total\{result="rejected"\} 1/,
      );
    } finally {
      await only.stop();
    }
  });
});
