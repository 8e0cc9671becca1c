import { formatMark } from '@egress-proxies/conformance/reference';
import { instanceName } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import type { ProxyObject } from '../../api/proxy.js';
import { OperatorMetrics } from '../../telemetry/metrics.js';
import { OrphanGc } from './orphan-gc.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');

function setup(live: ProxyObject[] = []) {
  const { handle, backend } = referenceHandle();
  const events: string[] = [];
  const metrics = new OperatorMetrics();
  let now = NOW;
  const gc = new OrphanGc({
    liveProxies: () => live,
    installation: 'install-A',
    graceMs: HOUR,
    now: () => now,
    metrics,
    event: async (_p, _t, reason, message) => {
      events.push(`${reason}: ${message}`);
    },
  });
  const seed = (name: string, mark: { uid: string; installation?: string; createdAt?: Date } | undefined) =>
    backend.seedDomain({
      host: 'alpha',
      name,
      state: 'running',
      ...(mark ? { metadata: formatMark(mark) } : {}),
    });
  return { handle, backend, gc, events, metrics, seed, advance: (ms: number) => (now += ms) };
}

describe('OrphanGc', () => {
  it('deletes only an old orphan carrying this installation, and says so', async () => {
    const live = newProxy({}, 'alive');
    const t = setup([live]);
    const old = new Date(NOW - 2 * HOUR);
    t.seed('proxy-000000000000000a', { uid: 'dead-uid', installation: 'install-A', createdAt: old });
    t.seed('proxy-000000000000000b', { uid: 'dead-uid2', installation: 'install-B', createdAt: old });
    t.seed('proxy-000000000000000c', {
      uid: 'dead-uid3',
      installation: 'install-A',
      createdAt: new Date(NOW - 1000),
    });
    t.seed('proxy-000000000000000d', { uid: live.metadata.uid!, installation: 'install-A', createdAt: old });
    t.seed('proxy-000000000000000e', { uid: 'dead-uid4', installation: 'install-A' });
    t.seed('proxy-000000000000000f', { uid: 'dead-uid5', createdAt: old });
    t.seed('proxy-0000000000000010', undefined);
    const report = await t.gc.collect(t.handle);
    expect(report.deleted).toEqual([{ id: 'hosts/alpha/domains/proxy-000000000000000a', kind: 'instance' }]);
    expect(report.kept).toEqual({ live: 1, young: 1, foreign: 2, unknownAge: 1 });
    expect(t.backend.domains().map((d) => d.name)).not.toContain('proxy-000000000000000a');
    expect(t.backend.domains()).toHaveLength(6);
    expect(t.events).toEqual([
      'OrphanDeleted: deleted orphan instance hosts/alpha/domains/proxy-000000000000000a (owner uid dead-uid matches no live Proxy)',
    ]);
    expect(await t.metrics.registry.metrics()).toMatch(
      /egress_proxies_gc_deletions_total\{provider="ref",kind="instance"\} 1/,
    );
  });

  it('keeps the instance of a Proxy that moved to another provider while it still holds it', async () => {
    const moving = newProxy({ provider: 'other' }, 'mover');
    moving.status = { instanceProvider: 'ref', providerID: 'x' };
    const t = setup([moving]);
    t.seed('proxy-000000000000000a', {
      uid: moving.metadata.uid!,
      installation: 'install-A',
      createdAt: new Date(NOW - 2 * HOUR),
    });
    expect((await t.gc.collect(t.handle)).deleted).toEqual([]);
  });

  it('reports a failed listing without deleting anything', async () => {
    const t = setup();
    t.backend.setUnreachable(true, 'alpha');
    const report = await t.gc.collect(t.handle);
    expect(report.deleted).toEqual([]);
    expect(report.errors[0]).toContain('listByTag');
  });

  it('collects secondary resources orphaned for longer than the grace period', async () => {
    const live = newProxy({}, 'alive');
    const t = setup([live]);
    // A create that left volumes but no domain, for a Proxy that is gone, and one for a live Proxy.
    const gone = instanceName('ns1', 'gone');
    const mine = instanceName('ns1', 'alive');
    t.backend.failNext('define', 2, 'INTERNAL');
    const req = (name: string, uid: string) => ({
      name,
      namespace: 'ns1',
      uid,
      port: 3128,
      placement: { zone: 'alpha', machineType: 'small', image: 'debian-12' },
    });
    await expect(t.handle.provider.create(req(gone, 'u-gone'))).rejects.toThrow();
    await expect(t.handle.provider.create(req(mine, live.metadata.uid!))).rejects.toThrow();
    const first = await t.gc.collect(t.handle);
    expect(first.deleted).toEqual([]);
    t.advance(HOUR + 1);
    const second = await t.gc.collect(t.handle);
    expect(second.deleted.map((d) => d.kind).sort()).toEqual(['overlay', 'seed']);
    const owners = t.backend
      .volumes()
      .filter((v) => v.kind !== 'base')
      .map((v) => v.owner);
    expect(owners).not.toContain(gone);
    expect(owners).toContain(mine);
  });
});
