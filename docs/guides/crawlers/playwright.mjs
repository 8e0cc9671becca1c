// Playwright (playwright-core, which downloads no browser) with Debian's chromium: one browser,
// a context per identity. PROXY is the gateway (http://[user:password@]host:port), TARGET the page
// to load; prints the egress address the target saw for each page load, as JSON.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium-flags.mjs';

const { PROXY, TARGET } = process.env;
// A browser takes the proxy's address and its credentials apart: the user from PROXY rotates.
const gateway = new URL(PROXY);
const server = gateway.origin;
const user = gateway.username
  ? { username: decodeURIComponent(gateway.username), password: decodeURIComponent(gateway.password) }
  : {};

async function egress(context) {
  const page = await context.newPage();
  const res = await page.goto(TARGET);
  if (res?.status() !== 200) throw new Error(`${TARGET} answered ${res?.status()}`);
  return JSON.parse(await page.locator('body').textContent()).ip;
}

// Contexts open side by side, one per proxy setting: each has its own connections to the proxy,
// and a context that stays open keeps its connection, so without a session the gateway puts
// them on different members.
async function contexts(browser, proxies) {
  const opened = [];
  try {
    for (const proxy of proxies) opened.push(await browser.newContext({ proxy }));
    const seen = [];
    for (const c of opened) seen.push(await egress(c));
    return seen;
  } finally {
    for (const c of opened) await c.close();
  }
}

// Playwright adds --headless and a fresh --user-data-dir itself (and refuses the latter in args).
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
try {
  const rotating = await contexts(browser, [
    { server, ...user },
    { server, ...user },
  ]);
  // Credentials go in the proxy option, apart from the URL: Playwright answers the proxy's 407
  // challenge with them. One session username puts both contexts on one member...
  const session = (id) => ({ server, username: `crawler-session-${id}`, password: 'x' });
  const sticky = await contexts(browser, [session(42), session(42)]);
  // ...and each session id has a member the gateway picks for it: other ids until one leaves from
  // another member than session 42 (with three members, most often the first).
  const sessions = [sticky[0]];
  for (let id = 1; id <= 12 && new Set(sessions).size < 2; id++)
    sessions.push(...(await contexts(browser, [session(id)])));
  console.log(JSON.stringify({ rotating, sticky, sessions }));
} finally {
  await browser.close();
}
