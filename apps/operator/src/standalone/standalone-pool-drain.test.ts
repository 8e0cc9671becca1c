import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileProxyStore } from './file-proxy-store.js';
import { readPoolState } from './member-file.js';
import { StandalonePools } from './standalone-pools.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-pool-drain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The drain's clock and the gateway's connection counts, driven by hand: the pool is planned by
// explicit steps on a fake clock, and a connection on a member is the gateway's own count of it
// (what a tunnel through the member holds), so the drain timeout needs no real wait.
const poolDoc = (replicas: number) => `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata: {name: crawl}
spec:
  replicas: ${replicas}
  template: {provider: local, port: 3128}
  gateway: {port: 18085}
`;

async function drainingPool(name: string, drainTimeoutMs: number) {
  const sub = mkdtempSync(join(dir, `${name}-`));
  const file = join(sub, 'pool.yaml');
  const stateDir = join(sub, 'state');
  writeFileSync(file, poolDoc(2));
  const clock = { now: Date.parse('2026-12-06T10:00:00Z') };
  const pools = new StandalonePools({ stateDir, now: () => clock.now, drainTimeoutMs });
  const store = new FileProxyStore({
    pools,
    paths: [file],
    stateDir,
    installation: `inst-${name}`,
    rescanMs: 3_600_000,
    debounceMs: 3_600_000,
  });
  await store.start();
  pools.attach(store);
  await pools.step();
  const names = () => pools.views()[0]?.members.map((m) => m.name) ?? [];
  for (const m of names()) {
    const p = store.get(`default/${m}`);
    if (!p) throw new Error(`no Proxy ${m} in the store`);
    await store.updateStatus(p, { phase: 'Ready', ip: '127.0.0.1', port: 1 });
  }
  await pools.step();
  const gateway = pools.gateway('default/crawl');
  if (!gateway) throw new Error('the pool has no gateway');
  return {
    clock,
    pools,
    gateway,
    stateDir,
    names,
    draining: () => pools.views()[0]?.draining ?? [],
    routed: () => gateway.members.members().map((m) => m.name),
    async resize(replicas: number) {
      writeFileSync(file, poolDoc(replicas));
      await store.rescan();
      await pools.step();
    },
    async close() {
      await pools.stop(0);
      await store.stop();
    },
  };
}

describe('StandalonePools: draining a member chosen to go', () => {
  it('deletes it at the drain timeout when its connections are still open', async () => {
    const p = await drainingPool('timeout', 120_000);
    try {
      const [a, b] = [...p.names()].sort();
      const release = p.gateway.members.hold(a as string);
      p.gateway.members.hold(b as string);
      await p.resize(1);
      // Both carry a connection: one goes (the older by name), drained rather than deleted.
      expect([...p.names()].sort()).toEqual([a, b]);
      expect(p.draining()).toEqual([a]);
      expect(p.routed()).toEqual([b]);
      // The pool's members (what `status` and the status page read) say since when it drains.
      const listed = p.pools.views()[0]?.members ?? [];
      expect(listed.find((m) => m.name === a)?.drainingSince).toBe(new Date(p.clock.now).toISOString());
      expect(listed.find((m) => m.name === b)?.drainingSince).toBeUndefined();
      expect(readPoolState(p.stateDir).members['default/crawl']?.find((m) => m.name === a)?.draining).toEqual(
        {
          since: p.clock.now,
          reason: 'scale-down',
        },
      );
      p.clock.now += 119_999;
      await p.pools.step();
      expect([...p.names()].sort()).toEqual([a, b]);
      p.clock.now += 1;
      await p.pools.step();
      expect(p.names()).toEqual([b]);
      expect(p.draining()).toEqual([]);
      release();
    } finally {
      await p.close();
    }
  });

  it('takes a draining member back when the pool wants more members again, instead of making one', async () => {
    const p = await drainingPool('back', 120_000);
    try {
      const [a, b] = [...p.names()].sort();
      p.gateway.members.hold(a as string);
      p.gateway.members.hold(b as string);
      await p.resize(1);
      expect(p.draining()).toEqual([a]);
      p.clock.now += 1_000;
      await p.resize(2);
      expect([...p.names()].sort()).toEqual([a, b]);
      expect(p.draining()).toEqual([]);
      expect(p.routed().sort()).toEqual([a, b].sort());
    } finally {
      await p.close();
    }
  });
});
