import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressThrough } from '../src/commands/check-gateway.js';
import { StandalonePoolHarness } from './support/standalone-pool-harness.js';

// ProxyPools under `up` over the real local provider (Node engine, one loopback egress address
// per member): the pool controller, the Proxy reconciler underneath and the in-process gateway.
const h = new StandalonePoolHarness('ep-pool-', { min: 24310, max: 24359 });
const { docsPath } = h;

const pool = (replicas: number) =>
  h.poolDoc('crawl', replicas, `  rotation: {minReady: ${Math.min(replicas, 2)}, maxSurge: 1}\n`);

const view = () => h.sa?.pools.views().find((p) => p.key === 'default/crawl');
const readyNames = () =>
  view()
    ?.members.filter((m) => m.ready)
    .map((m) => m.name) ?? [];
const settled = (n: number) =>
  h.waitFor(`${n} Ready members and no others`, () => {
    const v = view();
    return v && v.members.length === n && v.ready === n ? v : undefined;
  });

beforeAll(() => h.setup());
afterAll(() => h.close());

describe('ProxyPool under up', () => {
  it('keeps the pool at size, routes its gateway over every member, scales, recycles and deletes', async () => {
    writeFileSync(docsPath, pool(2));
    const sa = await h.start();
    const v2 = await settled(2);
    // The port in the spec is taken (the echo server holds it): the gateway took a free one.
    expect(v2.gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await sa.pools.step();
    // The view lists each member where the gateway reaches it (the port the provider allocated),
    // with the fields of the cluster's status.members.
    const routed = sa.pools.gateway('default/crawl')?.members.members() ?? [];
    expect(routed).toHaveLength(2);
    expect(
      view()
        ?.members.map((m) => `${m.name} ${m.provider} ${m.ip}:${m.port}`)
        .sort(),
    ).toEqual(routed.map((m) => `${m.name} local ${m.host}:${m.port}`).sort());
    const spread = await egressThrough(v2.gateway as string, h.echo.url, { count: 4 });
    expect(new Set(spread).size).toBe(2);
    const sticky = await egressThrough(v2.gateway as string, h.echo.url, { count: 3, session: 's1' });
    expect(new Set(sticky).size).toBe(1);
    // The gateway's metrics are on the operator's /metrics, per pool and member.
    const text = await sa.metrics.registry.metrics();
    expect(text).toMatch(
      /egress_proxies_gateway_connections_total\{pool="default\/crawl",member="crawl-[a-z0-9]{5}",kind="http"\} \d+/,
    );

    // Scale up: one more member, the two first ones kept.
    const first = readyNames();
    writeFileSync(docsPath, pool(3));
    const v3 = await settled(3);
    expect(v3.members.map((m) => m.name)).toEqual(expect.arrayContaining(first));

    // Recycle one member on demand: it is replaced, and the Ready count never drops below minReady.
    const victim = first[0] as string;
    writeFileSync(
      docsPath,
      `${pool(3)}`.replace(
        '  name: crawl\n',
        `  name: crawl\n  annotations: {egress-proxies.dev/recycle: ${victim}}\n`,
      ),
    );
    let lowest = 3;
    await h.waitFor('the recycled member replaced', () => {
      const v = view();
      if (v) lowest = Math.min(lowest, v.ready);
      return v && !v.members.some((m) => m.name === victim) && v.ready === 3 ? v : undefined;
    });
    expect(lowest).toBeGreaterThanOrEqual(2);

    // Scale down to one, then remove the pool: its members are deleted with it.
    writeFileSync(
      docsPath,
      pool(1).replace(
        '  name: crawl\n',
        `  name: crawl\n  annotations: {egress-proxies.dev/recycle: ${victim}}\n`,
      ),
    );
    await settled(1);
    writeFileSync(docsPath, '');
    await h.waitFor(
      'the pool and its members gone',
      () => sa.store.records().length === 0 && view() === undefined,
    );
  });
});
