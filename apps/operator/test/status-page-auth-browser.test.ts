import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthDecision } from '../src/status-page/bearer-auth.js';
import type { StatusPageData } from '../src/status-page/page-data.js';
import { startStatusPage } from '../src/status-page/status-page-server.js';
import { launchChromium } from './support/chromium.mjs';

// Debian's Chromium (never a downloaded browser), against the page as the operator serves it in
// a cluster: behind bearer-token authentication. The authentication is a stand-in for the
// cluster's TokenReview and SubjectAccessReview (tested against the real API server elsewhere);
// what this test holds is the page's side: it asks for a token, sends it, and follows the stream.
const ARTIFACTS = join(__dirname, '..', '.test-results', 'status-page');
const dir = mkdtempSync(join(tmpdir(), 'ep-page-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const member = (name: string) => ({
  name,
  provider: 'kvm',
  address: `10.0.0.${name.length}:3128`,
  assignedEgress: '203.0.113.7',
  ready: true,
  cooledDown: false,
});

describe('the status page behind authentication, in Chromium', () => {
  it('asks for a token, says why one is refused, shows the pool live with a good one, and asks again once it is revoked', async () => {
    let members = [member('crawl-a')];
    const snapshot = (): StatusPageData => ({
      updatedAt: new Date().toISOString(),
      pools: [{ pool: 'team/crawl', desired: members.length, ready: members.length, members }],
    });
    // "good" may read the page until revoked; "reader" is a real user without the role.
    let goodAllowed = true;
    const seen: (string | undefined)[] = [];
    const authenticate = async (headers: { authorization?: string }): Promise<AuthDecision> => {
      seen.push(headers.authorization);
      if (headers.authorization === 'Bearer good' && goodAllowed) return { ok: true, user: 'good' };
      if (headers.authorization === 'Bearer good' || headers.authorization === 'Bearer reader')
        return { ok: false, status: 403, message: 'may not read the status page' };
      return { ok: false, status: 401, message: 'a valid bearer token is needed' };
    };
    const page0 = await startStatusPage({
      host: '127.0.0.1',
      port: 0,
      snapshot,
      authenticate,
      intervalMs: 100,
      recheckStreamsMs: 200,
    });
    const browser = await launchChromium(dir);
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
      await page.goto(page0.url);
      const why = page.locator('#signin-why');
      await expect.poll(() => why.textContent()).toBe('This page needs a bearer token.');
      expect(await page.getByLabel(/Bearer token/).isVisible()).toBe(true);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'signin.png'), fullPage: true });

      await page.getByLabel(/Bearer token/).fill('wrong');
      await page.getByRole('button', { name: 'Show the status' }).click();
      await expect.poll(() => why.textContent()).toBe('That token was refused.');
      await page.getByLabel(/Bearer token/).fill('reader');
      await page.getByRole('button', { name: 'Show the status' }).click();
      await expect.poll(() => why.textContent()).toBe('That token may not read this page.');

      await page.getByLabel(/Bearer token/).fill('good');
      await page.getByRole('button', { name: 'Show the status' }).click();
      const rows = page.locator('table[data-pool="team/crawl"] tbody tr');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await page.locator('#signin').isHidden()).toBe(true);
      // A change reaches the open page through the authenticated stream, with no reload.
      members = [member('crawl-a'), member('crawl-bb')];
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
      await page.screenshot({ path: join(ARTIFACTS, 'signed-in.png'), fullPage: true });
      expect(seen).toContain('Bearer good');

      // The token's right is taken away: the stream ends at its next check and the page asks again.
      expect(await why.textContent()).toBe('');
      goodAllowed = false;
      await expect.poll(() => page.getByLabel(/Bearer token/).isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await why.textContent()).toBe('That token may not read this page.');
      // The token was kept for the tab only and is dropped once refused.
      expect(await page.evaluate("sessionStorage.getItem('egress-proxies-token')")).toBeNull();
    } finally {
      await browser.close();
      await page0.close();
    }
  }, 120_000);
});
