// Playwright (playwright-core, which downloads no browser) with Debian's chromium: one browser,
// a context per identity. PROXY is the gateway (http://host:port), TARGET the page to load;
// prints the egress address the target saw for each page load, as JSON.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium-flags.mjs';

const { PROXY, TARGET } = process.env;

async function egress(context) {
  const page = await context.newPage();
  const res = await page.goto(TARGET);
  if (res?.status() !== 200) throw new Error(`${TARGET} answered ${res?.status()}`);
  return JSON.parse(await page.locator('body').textContent()).ip;
}

// Two contexts open side by side: each has its own connections to the proxy, and a context that
// stays open keeps its connection, so without a session the gateway puts them on two members.
async function twoContexts(browser, proxy) {
  const contexts = [await browser.newContext({ proxy }), await browser.newContext({ proxy })];
  try {
    return [await egress(contexts[0]), await egress(contexts[1])];
  } finally {
    for (const c of contexts) await c.close();
  }
}

// Playwright adds --headless and a fresh --user-data-dir itself (and refuses the latter in args).
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
try {
  const rotating = await twoContexts(browser, { server: PROXY });
  // Credentials go in the proxy option, apart from the URL: Playwright answers the proxy's 407
  // challenge with them. The session username puts both contexts on one member.
  const sticky = await twoContexts(browser, { server: PROXY, username: 'crawler-session-42', password: 'x' });
  console.log(JSON.stringify({ rotating, sticky }));
} finally {
  await browser.close();
}
