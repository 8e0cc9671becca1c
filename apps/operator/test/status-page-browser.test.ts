import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { down } from '../src/standalone/down.js';
import type { StatusPageData } from '../src/status-page/page-data.js';
import { startStatusPage } from '../src/status-page/status-page-server.js';
import { CHROMIUM, launchChromium } from './support/chromium.mjs';
import { MAIN, upDemoArgs } from './support/run-cli.js';

// The status page of a running `up` with a local pool, in the Debian package's headless
// Chromium (driven by playwright-core; no browser is downloaded). Screenshots are kept in
// .test-results/status-page/ (git-ignored).
const ARTIFACTS = join(__dirname, '..', '.test-results', 'status-page');
const dir = mkdtempSync(join(tmpdir(), 'ep-page-'));
const stateDir = join(dir, 'state');
const providersPath = join(dir, 'providers.yaml');
const docsPath = join(dir, 'pool.yaml');
let up: ChildProcess | undefined;
/** The page's URL, once the first test started `up`. */
let pageUrl: string | undefined;

afterAll(async () => {
  if (up && up.exitCode === null) {
    const exited = new Promise((r) => up?.once('exit', r));
    up.kill('SIGINT');
    await exited;
  }
  if (existsSync(stateDir)) await down({ providersPath, stateDir }).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  holder?.close();
});

/** The first test's pool; its gateway port is held, so the gateway takes a free one. */
const crawlPool = (port: number) => `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata: {name: crawl}
spec:
  replicas: 2
  template: {provider: local}
  gateway: {port: ${port}}
`;

/** A loopback port held open until the end of the file. */
async function holdPort(): Promise<{ port: number }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  holder = server;
  return { port: (server.address() as AddressInfo).port };
}
let holder: Server | undefined;

/** Starts `up` and resolves to the status page URL it prints. */
function startUp(): Promise<string> {
  up = spawn(
    process.execPath,
    [MAIN, ...upDemoArgs(docsPath, providersPath, stateDir), '--output', 'plain'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  return new Promise((resolve, reject) => {
    up?.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /status page: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(err);
      if (m) resolve(m[1] as string);
    });
    up?.stdout?.resume();
    up?.once('exit', (code) =>
      reject(new Error(`up exited ${code} before printing its status page: ${err}`)),
    );
  });
}

describe('the status page', () => {
  it('shows the live pool, its members and their egress addresses in Chromium', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the chromium Debian package`);
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first`);
    writeFileSync(
      providersPath,
      `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24460, max: 24469}, engine: node, loopbackEgress: true}\n`,
    );
    // The port in the spec is held here, so the gateway takes a free one (never a fixed port).
    const held = await holdPort();
    writeFileSync(docsPath, crawlPool(held.port));
    const url = await startUp();
    pageUrl = url;
    const browser = await launchChromium(dir);
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 500 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(url);
      // Live: the page was loaded before the members were Ready; the events bring them in.
      const rows = page.locator('table[data-pool="default/crawl"] tbody tr');
      // Polled from here, not with waitForFunction: the page's CSP forbids eval, which
      // playwright's in-page polling of a predicate needs once its first check is false.
      const seenFromLoopback = async () =>
        (await rows.locator('[data-key="seenEgress"]').allTextContents()).filter((t) => /^127\./.test(t))
          .length;
      try {
        await expect.poll(seenFromLoopback, { timeout: 60_000 }).toBe(2);
      } catch (err) {
        // What the page and the endpoint showed, to see which side is behind.
        const api = await (await fetch(`${url}api/status`)).text();
        throw new Error(
          `${err}\npage: ${await page.locator('main').textContent()}\nerrors: ${errors.join('; ')}\napi: ${api}`,
        );
      }
      const seen = await rows.locator('[data-key="seenEgress"]').allTextContents();
      const names = await rows.locator('[data-key="name"]').allTextContents();
      // What the page shows is what its JSON endpoint (as curl reads it) says now.
      const now = (await (await fetch(`${url}api/status`)).json()) as StatusPageData;
      expect(now.pools.map((p) => p.pool)).toEqual(['default/crawl']);
      const members = now.pools[0]?.members ?? [];
      expect(names.sort()).toEqual(members.map((m) => m.name).sort());
      expect(seen.sort()).toEqual(members.map((m) => m.seenEgress).sort());
      // The local provider gives each member its own loopback egress address.
      expect(new Set(seen).size).toBe(2);
      expect(await rows.locator('[data-key="ready"]').allTextContents()).toEqual(['yes', 'yes']);
      expect(await rows.locator('[data-key="provider"]').allTextContents()).toEqual(['local', 'local']);
      // Table semantics: a caption, column headers, a row header per member.
      expect(await page.locator('table[data-pool="default/crawl"] caption').textContent()).toBe(
        'Members of pool default/crawl',
      );
      expect(
        await page.locator('table[data-pool="default/crawl"] thead th[scope="col"]').allTextContents(),
      ).toEqual([
        'Member',
        'Provider',
        'Zone',
        'Address',
        'Assigned egress',
        'Seen egress',
        'Age',
        'Ready',
        'Cooled down until',
        'Requests',
        'Bytes',
        'Errors',
      ]);
      // Ages from the members' creation, shown as people read them.
      for (const a of await rows.locator('[data-key="age"]').allTextContents())
        expect(a).toMatch(/^\d+ (s|min)$/);
      expect(await rows.locator('th[scope="row"]').count()).toBe(2);
      expect(await page.locator('[data-pool-summary="default/crawl"]').textContent()).toMatch(
        /^2 of 2 Ready; gateway http:\/\/127\.0\.0\.1:\d+$/,
      );
      // The gateway's counters per member: requests through the gateway raise them, live.
      const before = await memberCounters(page, 'requests');
      const gateway = now.pools[0]?.gateway as string;
      for (let i = 0; i < 4; i++) expect(await fetchThrough(gateway, `${url}api/status`)).toBe(200);
      await expect
        .poll(async () => total(await memberCounters(page, 'requests')), { timeout: 30_000, interval: 200 })
        .toBeGreaterThanOrEqual(total(before) + 4);
      const after = await memberCounters(page, 'requests');
      expect(Object.keys(after).some((m) => (after[m] ?? 0) > (before[m] ?? 0))).toBe(true);
      expect(total(await memberCounters(page, 'bytes'))).toBeGreaterThan(0);
      // The providers' health, and the members' Ready events from the reconciler.
      expect(
        await page.locator('#providers tr[data-provider="local"] td[data-label="Ready"]').allTextContents(),
      ).toEqual(['yes']);
      expect(await page.locator('#events caption').textContent()).toBe('Newest first');
      for (const name of names)
        expect(
          await page
            .locator(`#events tr[data-event-reason="Ready"][data-event-subject="default/${name}"]`)
            .count(),
        ).toBe(1);
      expect(errors).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'pool-desktop.png'), fullPage: true });

      // A phone's width: each row becomes labelled cells, nothing wider than the screen.
      await page.setViewportSize({ width: 375, height: 800 });
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      // Each member is a block about as wide as the screen (not a column squeezed by the desktop widths).
      for (const box of await Promise.all([0, 1].map((i) => rows.nth(i).boundingBox())))
        expect(box?.width).toBeGreaterThan(300);
      await page.screenshot({ path: join(ARTIFACTS, 'pool-phone.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('shows a member cooled down, until when and why, as it happens', async () => {
    if (!pageUrl) throw new Error('the first test did not start up');
    const url = pageUrl;
    // A site that bans: its 429 through a member cools that member down.
    const banning = createHttpServer((_req, res) => res.writeHead(429).end('slow down\n'));
    await new Promise<void>((r) => banning.listen(0, '127.0.0.1', () => r()));
    const browser = await launchChromium(dir);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(url);
      const table = page.locator('table[data-pool="default/crawl"]');
      await table.locator('tbody tr').nth(1).waitFor({ timeout: 30_000 });
      expect(await table.locator('[data-key="cooldown"]').allTextContents()).toEqual(['-', '-']);
      const crawl = ((await (await fetch(`${url}api/status`)).json()) as StatusPageData).pools[0];
      const target = `http://127.0.0.1:${(banning.address() as AddressInfo).port}/`;
      expect(await fetchThrough(crawl?.gateway as string, target)).toBe(429);
      // The page, loaded before, shows the event and the member's row change without a reload.
      const event = page.locator('#events tr[data-event-reason="CooledDown"]');
      await event.waitFor({ timeout: 30_000 });
      const subject = (await event.getAttribute('data-event-subject')) as string;
      const member = subject.replace(/^default\//, '');
      expect(await event.locator('td[data-label="Message"]').textContent()).toBe(
        'cooled down in pool default/crawl (status-429)',
      );
      expect(await event.locator('td[data-label="Type"]').textContent()).toBe('Warning');
      const row = table.locator(`tr[data-member="${member}"]`);
      const until = (
        (await (await fetch(`${url}api/status`)).json()) as StatusPageData
      ).pools[0]?.members.find((m) => m.name === member)?.cooledDownUntil as string;
      expect(Date.parse(until)).toBeGreaterThan(Date.now());
      await expect
        .poll(() => row.locator('[data-key="cooldown"]').textContent(), { timeout: 10_000 })
        .not.toBe('-');
      expect(await row.locator('[data-key="errors"]').getAttribute('data-value')).toBe('1');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'member-cooled-down.png'), fullPage: true });
    } finally {
      await browser.close();
      banning.closeAllConnections();
      await new Promise((r) => banning.close(r));
    }
  }, 120_000);

  it('shows a pool at zero scale up live when a request wakes it', async () => {
    if (!pageUrl || !holder) throw new Error('the first test did not start up');
    const url = pageUrl;
    const held = { port: (holder.address() as AddressInfo).port };
    // A second pool, added while up runs: it sleeps at zero until a request comes.
    writeFileSync(
      docsPath,
      `${crawlPool(held.port)}---
apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata: {name: sleepy}
spec:
  replicas: 0
  template: {provider: local}
  autoscale: {minReplicas: 0, maxReplicas: 1, targetActiveConnections: 5, scaleDownAfter: 10m, wakeTimeout: 120s}
  gateway: {port: ${held.port}}
`,
    );
    const browser = await launchChromium(dir);
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await page.goto(url);
      const scaling = page.locator('[data-pool-scaling="default/sleepy"]');
      // Locators, not page functions: the page's CSP forbids evaluating strings.
      await scaling
        .filter({ hasText: /^Autoscale Idle: 0 wanted within 0\.\.1/ })
        .waitFor({ timeout: 60_000 });
      const sleepy = ((await (await fetch(`${url}api/status`)).json()) as StatusPageData).pools.find(
        (p) => p.pool === 'default/sleepy',
      );
      expect(sleepy?.members).toEqual([]);
      const gateway = sleepy?.gateway as string;
      // The request wakes the pool; the page, loaded before, shows the member appear and turn Ready.
      const answered = fetchThrough(gateway, url);
      await page
        .locator('table[data-pool="default/sleepy"] tbody tr [data-key="ready"]', { hasText: 'yes' })
        .waitFor({ timeout: 90_000 });
      expect(await scaling.textContent()).toMatch(/^Autoscale \w+: 1 wanted within 0\.\.1/);
      expect(await answered).toBe(200);
      // The autoscaler's decision is an event of the pool.
      expect(await page.locator('#events tr[data-event-subject="default/sleepy"]').count()).toBeGreaterThan(
        0,
      );
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'pool-woken.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('shows a member chosen to go as draining, since when, in its Ready column', async () => {
    // The page alone, on a fixed snapshot: getting a real pool to drain takes a scale-down while a
    // member carries a connection (the standalone and cluster drain tests do that); here it is
    // how the page draws the field they fill.
    const now = Date.now();
    const since = new Date(now - 5_000).toISOString();
    const member = (name: string, octet: number) => ({
      name,
      provider: 'local',
      address: `127.0.0.1:2446${octet}`,
      seenEgress: '127.0.0.1',
      createdAt: new Date(now - 60_000).toISOString(),
      ready: true,
      cooledDown: false,
    });
    const data: StatusPageData = {
      updatedAt: new Date(now).toISOString(),
      pools: [
        {
          pool: 'default/shrinking',
          desired: 1,
          // As the pool counts it: a draining member is not one of the Ready members it serves with.
          ready: 1,
          gateway: 'http://127.0.0.1:8080',
          members: [{ ...member('shrinking-a', 1), drainingSince: since }, member('shrinking-b', 2)],
        },
      ],
    };
    const served = await startStatusPage({ host: '127.0.0.1', port: 0, snapshot: () => data });
    const browser = await launchChromium(dir);
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 300 } });
      await page.goto(served.url);
      const ready = (m: string) => page.locator(`tr[data-member="${m}"] [data-key="ready"]`);
      await expect
        .poll(() => ready('shrinking-a').textContent(), { timeout: 10_000 })
        .toMatch(/^draining since /);
      expect(await ready('shrinking-a').textContent()).toContain(
        await page.evaluate<string>(`new Date(${JSON.stringify(since)}).toLocaleTimeString()`),
      );
      expect(await ready('shrinking-a').getAttribute('class')).toBe('draining');
      expect(await ready('shrinking-b').textContent()).toBe('yes');
      expect(await ready('shrinking-b').getAttribute('class')).toBe('yes');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'pool-draining.png'), fullPage: true });
    } finally {
      await browser.close();
      await served.close();
    }
  }, 60_000);
});

/** A counter of each member of default/crawl, as the page's cells hold it (by member name). */
async function memberCounters(page: Page, key: string): Promise<Record<string, number>> {
  const rows = page.locator('table[data-pool="default/crawl"] tbody tr');
  const out: Record<string, number> = {};
  for (let i = 0; i < (await rows.count()); i++) {
    const r = rows.nth(i);
    out[(await r.getAttribute('data-member')) as string] = Number(
      await r.locator(`[data-key="${key}"]`).getAttribute('data-value'),
    );
  }
  return out;
}

const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

/** GETs `target` through the proxy at `proxy`; resolves to the status. */
function fetchThrough(proxy: string, target: string): Promise<number> {
  const p = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = request({ host: p.hostname, port: Number(p.port), path: target, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
