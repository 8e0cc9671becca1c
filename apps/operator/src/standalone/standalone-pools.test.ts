import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { within } from '../../test/support/within.js';
import { ProxyUsers } from '../gateway/basic-auth.js';
import { FileProxyStore } from './file-proxy-store.js';
import { StandalonePools } from './standalone-pools.js';
import { readState } from './state-file.js';

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

describe('StandalonePools: cooldowns in the pool view', () => {
  it('shows a member its gateway cooled down as cooledDown, says so, and says when it is back', async () => {
    const file = join(dir, 'pool-gw.yaml');
    const stateDir = join(dir, 'state-gw');
    // The gateway listens (on a free port if 18083 is taken); the pool's gateway uses the view's members.
    writeFileSync(file, poolDoc.replace('{enabled: false}', '{port: 18083, cooldown: 1s}'));
    const pools = new StandalonePools({ stateDir });
    const store = new FileProxyStore({
      pools,
      paths: [file],
      stateDir,
      // As `up` writes them: the pools and their members, cooled down or not.
      extra: () => ({
        pools: pools.views().map((v) => ({
          key: v.key,
          desired: v.desired,
          replicas: v.replicas,
          ready: v.ready,
          members: v.members,
        })),
      }),
      installation: 'inst-2',
      rescanMs: 3_600_000,
      debounceMs: 3_600_000,
    });
    await store.start();
    pools.attach(store);
    try {
      await pools.step();
      const [a] = (pools.views()[0]?.members ?? []).map((m) => m.name);
      const p = store.get(`default/${a}`);
      if (!p) throw new Error(`no Proxy ${a} in the store`);
      await store.updateStatus(p, { phase: 'Ready', ip: '127.0.0.5', port: 40017 });
      await pools.step();
      const changes: { member: string; cooledDown: boolean; reason?: string; shown?: boolean }[] = [];
      pools.onMemberChange((c) =>
        changes.push({
          member: c.member,
          cooledDown: c.cooledDown,
          ...(c.reason ? { reason: c.reason } : {}),
          shown: c.view.members.find((m) => m.name === c.member)?.cooledDown,
        }),
      );
      const saved = () => readState(stateDir)?.pools?.[0]?.members.find((m) => m.name === a)?.cooledDown;
      store.flush();
      expect(saved()).toBe(false);
      pools.gateway('default/crawl')?.members.coolDown(a as string, 'status-429');
      expect(pools.views()[0]?.members.find((m) => m.name === a)?.cooledDown).toBe(true);
      // The state file follows without any other change (what `status` reads from another shell).
      await within(5000, () => saved() === true);
      expect(saved()).toBe(true);
      await new Promise((r) => setTimeout(r, 1100));
      expect(
        pools
          .gateway('default/crawl')
          ?.members.eligible()
          .map((m) => m.name),
      ).toEqual([a]);
      expect(changes).toEqual([
        { member: a, cooledDown: true, reason: 'status-429', shown: true },
        { member: a, cooledDown: false, shown: false },
      ]);
    } finally {
      await pools.stop(0);
      await store.stop();
    }
  });
});

describe('StandalonePools: a gateway other machines can reach', () => {
  it('listens on a non-loopback address with users, and asks for them', async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    // This test needs a non-loopback address; a machine without one fails it rather than skipping.
    expect(address, 'a non-loopback IPv4 address on this machine').toBeDefined();
    const file = join(dir, 'pool-remote.yaml');
    const stateDir = join(dir, 'state-remote');
    writeFileSync(file, poolDoc.replace('{enabled: false}', '{port: 18084}'));
    const pools = new StandalonePools({
      stateDir,
      gatewayHost: address as string,
      gatewayUsers: new ProxyUsers(new Map([['alice', 'wonder']])),
      gatewaySocks: { host: address as string, port: 0 },
    });
    const store = new FileProxyStore({
      pools,
      paths: [file],
      stateDir,
      installation: 'inst-3',
      rescanMs: 3_600_000,
      debounceMs: 3_600_000,
    });
    await store.start();
    pools.attach(store);
    try {
      await pools.step();
      const g = pools.gateway('default/crawl');
      expect(g?.host).toBe(address);
      const ask = (auth?: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({
            host: address,
            port: g?.port,
            path: 'http://127.0.0.1:1/',
            headers: auth ? { 'proxy-authorization': `Basic ${Buffer.from(auth).toString('base64')}` } : {},
            agent: false,
          });
          req.on('response', (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await ask()).toBe(407);
      expect(await ask('alice:wrong')).toBe(407);
      // Past auth: no member is Ready yet, so the gateway itself answers 503.
      expect(await ask('alice-session-1:wonder')).toBe(503);
      // Its SOCKS5 side, on the same address, offers only username/password and checks it.
      expect(g?.socks?.host).toBe(address);
      // The pool's view (what `up --output json` writes) names the SOCKS5 address beside the HTTP one.
      const view = pools.views()[0];
      expect(view?.gateway).toBe(`http://${address}:${g?.port}`);
      expect(view?.gatewaySocks).toBe(`socks5h://${address}:${g?.socks?.port}`);
      const socks = (bytes: number[]) =>
        new Promise<number[]>((resolve, reject) => {
          const s = connect({ host: address as string, port: g?.socks?.port as number });
          const got: number[] = [];
          s.on('connect', () => s.end(Buffer.from(bytes)));
          s.on('data', (c: Buffer) => got.push(...c));
          s.on('close', () => resolve(got));
          s.on('error', reject);
        });
      expect(await socks([5, 1, 0])).toEqual([5, 0xff]);
      const creds = [...Buffer.from('alice'), 6, ...Buffer.from('wonder')];
      expect(await socks([5, 1, 2, 1, 5, ...creds])).toEqual([5, 2, 1, 0]);
    } finally {
      await pools.stop(0);
      await store.stop();
    }
  });
});
