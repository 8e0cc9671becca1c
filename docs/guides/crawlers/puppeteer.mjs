// Puppeteer (puppeteer-core, which downloads no browser) with Debian's chromium: one browser,
// a context per identity. PROXY is the gateway (http://host:port), TARGET the page to load;
// prints the egress address the target saw for each page load, as JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium-flags.mjs';

const { PROXY, TARGET } = process.env;

// Puppeteer passes the proxy as --proxy-server; credentials never go in it: page.authenticate
// answers the proxy's 407 challenge.
async function egress(context, credentials) {
  const page = await context.newPage();
  if (credentials) await page.authenticate(credentials);
  const res = await page.goto(TARGET);
  if (res?.status() !== 200) throw new Error(`${TARGET} answered ${res?.status()}`);
  return JSON.parse(await page.$eval('body', (b) => b.textContent)).ip;
}

// Chromium sends loopback addresses around any proxy unless told not to (only the test's target is
// on loopback; harmless elsewhere).
const context = () => browser.createBrowserContext({ proxyServer: PROXY, proxyBypassList: ['<-loopback>'] });

// Two contexts open side by side: each has its own connections to the proxy, and a context that
// stays open keeps its connection, so without a session the gateway puts them on two members.
async function twoContexts(credentials) {
  const contexts = [await context(), await context()];
  try {
    return [await egress(contexts[0], credentials), await egress(contexts[1], credentials)];
  } finally {
    for (const c of contexts) await c.close();
  }
}

const profile = mkdtempSync(join(tmpdir(), 'crawler-chromium-'));
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', `--user-data-dir=${profile}`, ...CHROMIUM_FLAGS],
});
try {
  const rotating = await twoContexts();
  const sticky = await twoContexts({ username: 'crawler-session-42', password: 'x' });
  console.log(JSON.stringify({ rotating, sticky }));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
