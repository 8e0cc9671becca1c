import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileProxyStore } from '../standalone/file-proxy-store.js';
import { StandalonePools } from './standalone-pools.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-pools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No gateway (nothing listens), no watcher timing: the pool is planned by explicit steps.
const poolDoc = `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata: {name: crawl}
spec:
  replicas: 2
  template: {provider: local, port: 3128}
  gateway: {enabled: false}
`;

describe('StandalonePools: the pool view', () => {
  it('lists each member with the fields of the cluster status: ip, and status.port before spec.port', async () => {
    const file = join(dir, 'pool.yaml');
    const stateDir = join(dir, 'state');
    writeFileSync(file, poolDoc);
    const now = Date.parse('2026-12-04T10:00:00Z');
    const pools = new StandalonePools({ stateDir, now: () => now });
    const store = new FileProxyStore({
      pools,
      paths: [file],
      stateDir,
      installation: 'inst-1',
      rescanMs: 3_600_000,
      debounceMs: 3_600_000,
    });
    await store.start();
    pools.attach(store);
    await pools.step();
    const [a, b] = (pools.views()[0]?.members ?? []).map((m) => m.name);
    expect(a && b).toBeTruthy();
    const setStatus = async (name: string | undefined, status: Record<string, unknown>) => {
      const p = store.get(`default/${name}`);
      if (!p) throw new Error(`no Proxy ${name} in the store`);
      await store.updateStatus(p, status);
    };
    await setStatus(a, { phase: 'Ready', ip: '127.0.0.5', port: 40017, egressIP: '127.0.0.5' });
    await setStatus(b, { phase: 'Running', ip: '10.0.0.7' });
    const createdAt = '2026-12-04T10:00:00.000Z';
    expect(pools.views()).toEqual([
      {
        key: 'default/crawl',
        desired: 2,
        replicas: 2,
        ready: 1,
        updated: 2,
        members: [
          {
            name: a,
            provider: 'local',
            ip: '127.0.0.5',
            port: 40017,
            egressIP: '127.0.0.5',
            createdAt,
            ready: true,
            cooledDown: false,
          },
          {
            name: b,
            provider: 'local',
            ip: '10.0.0.7',
            port: 3128,
            createdAt,
            ready: false,
            cooledDown: false,
          },
        ],
        distinctEgress: {
          status: 'True',
          reason: 'DistinctEgress',
          message: '1 Ready member leave from 1 distinct address',
        },
      },
    ]);
    await store.stop();
  });

  it("shows each member's assigned and seen egress, names two Ready members seen from one address, and recycles the younger on Recycle", async () => {
    const sub = mkdtempSync(join(dir, 'dup-'));
    const file = join(sub, 'pool.yaml');
    const stateDir = join(sub, 'state');
    writeFileSync(
      file,
      poolDoc.replace(
        'gateway: {enabled: false}',
        'gateway: {enabled: false}\n  rotation: {onDuplicateEgress: Recycle}',
      ),
    );
    let now = Date.parse('2026-12-04T10:00:00Z');
    const pools = new StandalonePools({ stateDir, now: () => now });
    const store = new FileProxyStore({
      pools,
      paths: [file],
      stateDir,
      installation: 'inst-1',
      rescanMs: 3_600_000,
      debounceMs: 3_600_000,
    });
    await store.start();
    pools.attach(store);
    await pools.step();
    const first = pools.views()[0]?.members.map((m) => m.name) ?? [];
    const [a, b] = [...first].sort();
    const setStatus = async (name: string | undefined, status: Record<string, unknown>) => {
      const p = store.get(`default/${name}`);
      if (!p) throw new Error(`no Proxy ${name} in the store`);
      await store.updateStatus(p, status);
    };
    // Both planned distinct addresses, but the upstream sends both out through one.
    await setStatus(a, {
      phase: 'Ready',
      ip: '127.0.0.1',
      egressIP: '198.51.100.7',
      assignedEgress: { ipv4: '192.0.2.11' },
    });
    await setStatus(b, {
      phase: 'Ready',
      ip: '127.0.0.1',
      egressIP: '198.51.100.7',
      assignedEgress: { ipv4: '192.0.2.12' },
    });
    const view = pools.views()[0];
    expect(view?.members.map((m) => [m.name, m.assignedEgress, m.egressIP])).toEqual(
      [
        [a, { ipv4: '192.0.2.11' }, '198.51.100.7'],
        [b, { ipv4: '192.0.2.12' }, '198.51.100.7'],
      ].sort((x, y) => first.indexOf(x[0] as string) - first.indexOf(y[0] as string)),
    );
    expect(view?.distinctEgress).toEqual({
      status: 'False',
      reason: 'DuplicateEgress',
      message: `${a} and ${b} both leave from 198.51.100.7 (recycling the younger)`,
    });
    // The next round replaces the younger one (created at the same time: the later name),
    // surge first: its replacement comes now, and it goes once the replacement is Ready.
    now += 1000;
    await pools.step();
    const surged = pools.views()[0]?.members.map((m) => m.name) ?? [];
    expect(surged).toHaveLength(3);
    const fresh = surged.find((n) => n !== a && n !== b);
    await store.rescan();
    await setStatus(fresh, { phase: 'Ready', ip: '127.0.0.1', egressIP: '198.51.100.8' });
    now += 1000;
    await pools.step();
    expect(
      pools
        .views()[0]
        ?.members.map((m) => m.name)
        .sort(),
    ).toEqual([a, fresh].sort());
    await store.stop();
  });
});
