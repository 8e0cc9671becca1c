// Puppeteer (puppeteer-core, which downloads no browser) with Debian's chromium: one browser,
// a context per identity. PROXY is the gateway (http://[user:password@]host:port), TARGET the page
// to load; prints the egress address the target saw for each page load, as JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium-flags.mjs';

const { PROXY, TARGET } = process.env;
// Puppeteer passes the proxy as --proxy-server, which takes no credentials: the user from PROXY
// (who rotates) and the session users go to page.authenticate, which answers the proxy's 407.
const gateway = new URL(PROXY);
const user = gateway.username
  ? { username: decodeURIComponent(gateway.username), password: decodeURIComponent(gateway.password) }
  : undefined;

async function egress(context, credentials) {
  const page = await context.newPage();
  if (credentials) await page.authenticate(credentials);
  const res = await page.goto(TARGET);
  if (res?.status() !== 200) throw new Error(`${TARGET} answered ${res?.status()}`);
  return JSON.parse(await page.$eval('body', (b) => b.textContent)).ip;
}

// Chromium sends loopback addresses around any proxy unless told not to (only the test's target is
// on loopback; harmless elsewhere).
const context = () =>
  browser.createBrowserContext({ proxyServer: gateway.origin, proxyBypassList: ['<-loopback>'] });

// Contexts open side by side, one per identity: each has its own connections to the proxy, and a
// context that stays open keeps its connection, so without a session the gateway puts them on
// different members.
async function contexts(identities) {
  const opened = [];
  try {
    for (const _ of identities) opened.push(await context());
    const seen = [];
    for (const [i, c] of opened.entries()) seen.push(await egress(c, identities[i]));
    return seen;
  } finally {
    for (const c of opened) await c.close();
  }
}

const profile = mkdtempSync(join(tmpdir(), 'crawler-chromium-'));
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', `--user-data-dir=${profile}`, ...CHROMIUM_FLAGS],
});
try {
  const rotating = await contexts([user, user]);
  // One session username puts both contexts on one member...
  const session = (id) => ({ username: `crawler-session-${id}`, password: 'x' });
  const sticky = await contexts([session(42), session(42)]);
  // ...and each session id has a member the gateway picks for it: other ids until one leaves from
  // another member than session 42 (with three members, most often the first).
  const sessions = [sticky[0]];
  for (let id = 1; id <= 12 && new Set(sessions).size < 2; id++)
    sessions.push(...(await contexts([session(id)])));
  console.log(JSON.stringify({ rotating, sticky, sessions }));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
