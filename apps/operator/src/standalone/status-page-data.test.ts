import { describe, expect, it } from 'vitest';
import type { ProxyObject } from '../api/proxy.js';
import type { RunningGateway } from '../gateway/gateway-server.js';
import { GatewayStats } from '../gateway/gateway-stats.js';
import type { StoredEvent } from './file-proxy-store.js';
import type { PoolMemberChange, PoolScaleChange, PoolView } from './standalone-pools.js';
import { StandaloneStatusPage, type StatusPagePools, type StatusPageStore } from './status-page-data.js';

/** A pool of two members behind a gateway whose counters the test sets, and a store of their Proxies. */
function fleet() {
  let now = Date.UTC(2026, 0, 1);
  const stats = new GatewayStats('default/crawl');
  const view: PoolView = {
    key: 'default/crawl',
    desired: 2,
    replicas: 2,
    ready: 2,
    updated: 2,
    gateway: 'http://127.0.0.1:8080',
    members: [
      {
        name: 'crawl-a',
        provider: 'gce',
        ip: '10.0.0.1',
        port: 3128,
        ready: true,
        cooledDown: false,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      { name: 'crawl-b', provider: 'gce', ip: '10.0.0.2', port: 3128, ready: true, cooledDown: true },
    ],
  };
  const memberListeners = new Set<(c: PoolMemberChange) => void>();
  const scaleListeners = new Set<(c: PoolScaleChange) => void>();
  const displayListeners = new Set<(key: string) => void>();
  const gateway = {
    stats,
    members: { cooledDown: () => [{ member: 'crawl-b', until: now + 60_000, reason: 'status-429' }] },
  } as unknown as RunningGateway;
  const pools: StatusPagePools = {
    views: () => [view],
    gateway: (key) => (key === view.key ? gateway : undefined),
    onMemberChange: (l) => {
      memberListeners.add(l);
      return () => memberListeners.delete(l);
    },
    onScale: (l) => {
      scaleListeners.add(l);
      return () => scaleListeners.delete(l);
    },
  };
  const proxies = new Map<string, ProxyObject>();
  const proxy = (name: string, zone: string): ProxyObject =>
    ({
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'Proxy',
      metadata: { name, namespace: 'default' },
      spec: { provider: 'gce', placement: { zone } },
    }) as ProxyObject;
  proxies.set('default/crawl-a', proxy('crawl-a', 'europe-west1-b'));
  proxies.set('default/crawl-b', proxy('crawl-b', 'europe-west1-c'));
  const events: StoredEvent[] = [];
  const store: StatusPageStore = {
    get: (key: string) => proxies.get(key),
    events,
    providerHealth: () => [
      {
        name: 'gce',
        status: {
          type: 'gce',
          ready: false,
          targets: [
            {
              target: 'project-1',
              address: 'https://compute.example/',
              ready: false,
              reason: 'Unauthorized',
              message: 'credentials refused',
              details: { token: 'SECRET-TOKEN' },
              lastCheckTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
    ],
    onDisplayChange: (l) => {
      displayListeners.add(l);
      return () => displayListeners.delete(l);
    },
  } as StatusPageStore;
  return {
    stats,
    view,
    proxies,
    events,
    store,
    pools,
    tick: (ms: number) => {
      now += ms;
    },
    now: () => now,
    memberChanged: (c: PoolMemberChange) => {
      for (const l of memberListeners) l(c);
    },
    scaled: (c: PoolScaleChange) => {
      for (const l of scaleListeners) l(c);
    },
    displayChanged: (key: string) => {
      for (const l of displayListeners) l(key);
    },
    listeners: () => memberListeners.size + scaleListeners.size + displayListeners.size,
  };
}

describe('the status page data under up', () => {
  it("shows each member's zone, creation, cooldown end and the gateway's counters with a rate", () => {
    const f = fleet();
    const page = new StandaloneStatusPage(f.pools, f.store, { now: f.now });
    const a = f.stats.member('crawl-a');
    a.http = 3;
    a.connect = 2;
    a.bytesUp = 100;
    a.bytesDown = 900;
    f.stats.failure('crawl-a', 'member-reset');
    f.stats.failure('crawl-a', 'status-429');
    // The client's own abort is not the member's error.
    f.stats.failure('crawl-a', 'client-abort');
    const first = page.snapshot().pools[0]?.members ?? [];
    expect(first[0]).toEqual({
      name: 'crawl-a',
      provider: 'gce',
      address: '10.0.0.1:3128',
      zone: 'europe-west1-b',
      createdAt: '2026-01-01T00:00:00.000Z',
      ready: true,
      cooledDown: false,
      traffic: { requests: 5, bytes: 1000, errors: 2, requestsPerSecond: 0 },
    });
    // A member the gateway has not counted yet shows zeros, not nothing.
    expect(first[1]).toMatchObject({
      zone: 'europe-west1-c',
      cooledDown: true,
      cooledDownUntil: new Date(f.now() + 60_000).toISOString(),
      traffic: { requests: 0, bytes: 0, errors: 0, requestsPerSecond: 0 },
    });
    a.http += 20;
    f.tick(2000);
    expect(page.snapshot().pools[0]?.members[0]?.traffic?.requestsPerSecond).toBe(10);
    page.close();
  });

  it('shows since when a member drains, and nothing for the others', () => {
    const f = fleet();
    const since = '2026-01-01T00:00:05.000Z';
    const b = f.view.members[1];
    if (b) b.drainingSince = since;
    const page = new StandaloneStatusPage(f.pools, f.store, { now: f.now });
    const [first, second] = page.snapshot().pools[0]?.members ?? [];
    expect(second?.drainingSince).toBe(since);
    expect(first && 'drainingSince' in first).toBe(false);
    page.close();
  });

  it("shows the providers' health without free-form details", () => {
    const f = fleet();
    const page = new StandaloneStatusPage(f.pools, f.store, { now: f.now });
    const data = page.snapshot();
    expect(data.providers).toEqual([
      {
        name: 'gce',
        type: 'gce',
        ready: false,
        targets: [
          {
            target: 'project-1',
            ready: false,
            reason: 'Unauthorized',
            message: 'credentials refused',
            lastCheckTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    ]);
    expect(JSON.stringify(data)).not.toContain('SECRET-TOKEN');
    page.close();
  });

  it('merges the reconciler events with cooldowns, scaling and transient provider errors, newest last, bounded', () => {
    const f = fleet();
    const page = new StandaloneStatusPage(f.pools, f.store, { now: f.now, events: 4 });
    f.events.push({
      key: 'default/crawl-a',
      type: 'Warning',
      reason: 'Failed',
      message: 'create: machine type unknown',
      time: new Date(f.now()).toISOString(),
    });
    f.tick(1000);
    f.memberChanged({ view: f.view, member: 'crawl-b', cooledDown: true, reason: 'status-429' });
    f.tick(1000);
    f.scaled({ pool: 'default/crawl', from: 2, to: 3, reason: 'ScalingUp', message: '12 connections' });
    f.tick(1000);
    // A transient error is a Provisioned condition, not a reconciler event: seen once per message.
    const a = f.proxies.get('default/crawl-a') as ProxyObject;
    a.status = {
      conditions: [
        {
          type: 'Provisioned',
          status: 'False',
          reason: 'TransientError',
          message: 'create: 503 backend busy',
          lastTransitionTime: new Date(f.now()).toISOString(),
        },
      ],
    } as ProxyObject['status'];
    f.displayChanged('default/crawl-a');
    f.displayChanged('default/crawl-a');
    const events = page.snapshot().events ?? [];
    expect(events.map((e) => [e.subject, e.reason, e.errorClass, e.message])).toEqual([
      ['default/crawl-a', 'Failed', 'Permanent', 'create: machine type unknown'],
      ['default/crawl-b', 'CooledDown', undefined, 'cooled down in pool default/crawl (status-429)'],
      ['default/crawl', 'ScalingUp', undefined, '2 → 3 members: 12 connections'],
      ['default/crawl-a', 'TransientError', 'Transient', 'create: 503 backend busy'],
    ]);
    f.tick(1000);
    f.memberChanged({ view: f.view, member: 'crawl-b', cooledDown: false });
    // Bounded: the oldest goes.
    expect((page.snapshot().events ?? []).map((e) => e.reason)).toEqual([
      'CooledDown',
      'ScalingUp',
      'TransientError',
      'Recovered',
    ]);
    page.close();
    expect(f.listeners()).toBe(0);
  });
});
