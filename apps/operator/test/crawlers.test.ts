import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProxyUsers } from '../src/gateway/basic-auth.js';
import { CHROMIUM, chromiumEnv } from './support/chromium.mjs';
import { StandalonePoolHarness } from './support/standalone-pool-harness.js';

// The crawler guide's examples (docs/guides/crawlers/), run as a reader runs them against the
// gateway of a pool under `up`: three members on the local provider, each leaving from its own
// loopback address. The gateway requires users, as `up --gateway-users DIR` makes it: only a proxy
// that answers 407 gets a browser's credentials, and with them its session username. Each example
// prints what the target saw; rotation must reach every member and a session must stay on one.
// Python's come from Debian (python3-requests, python3-scrapy), as does the browsers' chromium: a
// machine without them fails here, naming the package.
const root = join(__dirname, '..', '..', '..');
const examples = join(root, 'docs', 'guides', 'crawlers');
const PYTHON = '/usr/bin/python3';
const h = new StandalonePoolHarness('ep-crawlers-', { min: 24370, max: 24399 });
// The users dir `up --gateway-users` reads: a file per user holding its password, the one the
// examples give with their session usernames (`crawler-session-<id>`).
const usersDir = join(h.dir, 'users');
const USER = 'crawler';
const PASSWORD = 'x';
let gateway: string;

beforeAll(async () => {
  await h.setup();
  mkdirSync(usersDir);
  writeFileSync(join(usersDir, USER), PASSWORD);
  writeFileSync(h.docsPath, h.poolDoc('crawl', 3));
  const sa = await h.start({ gatewayUsers: loadProxyUsers(usersDir) });
  const deadline = Date.now() + 120_000;
  for (;;) {
    await sa.pools.step();
    const v = sa.pools.views().find((p) => p.key === 'default/crawl');
    if (v?.gateway && v.ready === 3) {
      // The examples take the gateway's user from PROXY (http://user:password@host:port).
      const url = new URL(v.gateway);
      url.username = USER;
      url.password = PASSWORD;
      gateway = url.href.replace(/\/$/, '');
      break;
    }
    if (Date.now() > deadline) throw new Error(`the pool did not become Ready: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(() => h.close());

// Asynchronously: the gateway runs in this process and must keep serving while an example runs.
async function runExample<T = { rotating: string[]; sticky: string[] }>(
  cmd: string,
  file: string,
): Promise<T> {
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string; error?: Error }>(
    (resolve) => {
      const child = spawn(cmd, [join(examples, file)], {
        cwd: root,
        env: { ...chromiumEnv(h.dir), PROXY: gateway, TARGET: h.echo.url },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('error', (error) => resolve({ code: null, stdout, stderr, error }));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    },
  );
  if (r.error) throw new Error(`${cmd} ${file} could not run: ${r.error.message}`);
  if (r.code !== 0) throw new Error(`${cmd} ${file} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
}

function expectRotationAndSession(seen: { rotating: string[]; sticky: string[] }) {
  expect(seen.rotating).toHaveLength(3);
  expect(new Set(seen.rotating).size, `rotating: ${seen.rotating.join(', ')}`).toBe(3);
  expect(seen.sticky).toHaveLength(3);
  expect(new Set(seen.sticky).size, `sticky: ${seen.sticky.join(', ')}`).toBe(1);
}

type BrowserSeen = { rotating: string[]; sticky: string[]; sessions: string[] };

/**
 * What a browser example saw: two contexts side by side as the gateway's user leave from two
 * members; two with one session username leave from one, which a browser sends only because the
 * gateway asks (407); and session 42 with the other ids the example tried (up to 12, until one left
 * from another member) are not all pinned to one member. Member names are random, so which id lands
 * where differs per run; thirteen ids all on one of three members has odds of 3^-12.
 */
function expectBrowserSessions(seen: BrowserSeen) {
  expect(seen.rotating).toHaveLength(2);
  expect(new Set(seen.rotating).size, `rotating: ${seen.rotating.join(', ')}`).toBe(2);
  expect(seen.sticky).toHaveLength(2);
  expect(new Set(seen.sticky).size, `sticky: ${seen.sticky.join(', ')}`).toBe(1);
  expect(
    new Set(seen.sessions).size,
    `sessions 42, 1..${seen.sessions.length - 1}: ${seen.sessions.join(', ')}`,
  ).toBe(2);
}

/** Debian's chromium, which the browser examples launch, or a failure naming the package. */
function requireChromium() {
  const r = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', env: chromiumEnv(h.dir) });
  if (r.error || r.status !== 0)
    throw new Error(
      `${CHROMIUM} does not run: install Debian's chromium (scripts/install-system-deps.sh)\n${r.stderr ?? r.error?.message}`,
    );
}

/** A Debian Python module the examples need, or a failure naming the package to install. */
function requirePython(module: string, pkg: string) {
  const r = spawnSync(PYTHON, ['-c', `import ${module}`], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error(
      `${PYTHON} cannot import ${module}: install Debian's ${pkg} (scripts/install-system-deps.sh)\n${r.stderr ?? r.error?.message}`,
    );
}

describe('crawler guide examples against the gateway of a pool under up', () => {
  it('undici (Node): rotation over the three members, one member per session', async () => {
    expectRotationAndSession(await runExample(process.execPath, 'undici.mjs'));
  }, 120_000);

  it('Got (Node, hpagent): rotation over the three members, one member per session', async () => {
    expectRotationAndSession(await runExample(process.execPath, 'got.mjs'));
  }, 120_000);

  it('axios (Node): rotation over the three members, one member per session', async () => {
    expectRotationAndSession(await runExample(process.execPath, 'axios.mjs'));
  }, 120_000);

  it('Crawlee (@crawlee/http): rotation over the three members, one member per session', async () => {
    expectRotationAndSession(await runExample(process.execPath, 'crawlee.mjs'));
  }, 120_000);

  it('Playwright (playwright-core, Debian chromium): contexts rotate, one session stays on one member', async () => {
    requireChromium();
    expectBrowserSessions(await runExample<BrowserSeen>(process.execPath, 'playwright.mjs'));
  }, 120_000);

  it('Puppeteer (puppeteer-core, Debian chromium): contexts rotate, one session stays on one member', async () => {
    requireChromium();
    expectBrowserSessions(await runExample<BrowserSeen>(process.execPath, 'puppeteer.mjs'));
  }, 120_000);

  it('Python requests: rotation over the three members, one member per session', async () => {
    requirePython('requests', 'python3-requests');
    expectRotationAndSession(await runExample(PYTHON, 'requests_example.py'));
  }, 120_000);

  it('Scrapy: rotation over the three members, one member per session', async () => {
    requirePython('scrapy', 'python3-scrapy');
    expectRotationAndSession(await runExample(PYTHON, 'scrapy_example.py'));
  }, 120_000);
});
