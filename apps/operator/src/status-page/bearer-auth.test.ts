import { describe, expect, it } from 'vitest';
import { type AuthDecision, bearerAuth, type TokenVerdict } from './bearer-auth.js';
import type { StatusPageData } from './page-data.js';
import { startStatusPage } from './status-page-server.js';

const GOOD = 'eyJhbGciOiJSUzI1NiJ9.good-reader-token';
const OUTSIDER = 'eyJhbGciOiJSUzI1NiJ9.outsider-token';
const data: StatusPageData = {
  updatedAt: new Date().toISOString(),
  pools: [{ pool: 'team-a/crawl', desired: 1, ready: 1, members: [] }],
};

/** A reviewer that knows two tokens, counts its calls and fails while `down`. */
function reviewer() {
  const seen: string[] = [];
  const state = { calls: 0, down: false, revoked: new Set<string>() };
  const review = async (token: string): Promise<TokenVerdict> => {
    state.calls++;
    seen.push(token);
    if (state.down) throw new Error(`connect ECONNREFUSED while reviewing ${token}`);
    if (state.revoked.has(token)) return { authenticated: true, user: 'alice', allowed: false };
    if (token === GOOD) return { authenticated: true, user: 'alice', allowed: true };
    if (token === OUTSIDER) return { authenticated: true, user: 'mallory', allowed: false };
    return { authenticated: false, allowed: false };
  };
  return { review, state, seen };
}
const signal = new AbortController().signal;
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const messages = (...d: AuthDecision[]) => d.map((x) => (x.ok ? '' : x.message)).join('\n');

describe('bearer token auth', () => {
  it('refuses no token and a token nobody issued with 401, one without the right with 403, and lets the right one in', async () => {
    const { review } = reviewer();
    const auth = bearerAuth({ review });
    const none = await auth({}, signal);
    const basic = await auth({ authorization: 'Basic YWxpY2U6czNjcmV0' }, signal);
    const wrong = await auth(as('not-a-token'), signal);
    const outsider = await auth(as(OUTSIDER), signal);
    expect(none).toMatchObject({ ok: false, status: 401 });
    expect(basic).toMatchObject({ ok: false, status: 401 });
    expect(wrong).toMatchObject({ ok: false, status: 401 });
    expect(outsider).toMatchObject({
      ok: false,
      status: 403,
      message: 'mallory may not read the status page',
    });
    expect(await auth(as(GOOD), signal)).toEqual({ ok: true, user: 'alice' });
    expect(messages(none, basic, wrong, outsider)).not.toMatch(/token\.|not-a-token|YWxp/);
  });

  it('reuses a verdict for a while, then asks again; a failed review is a 503 that never names the token', async () => {
    const { review, state } = reviewer();
    let now = 0;
    const auth = bearerAuth({ review, cacheMs: 10_000, now: () => now });
    await auth(as(GOOD), signal);
    await auth(as(GOOD), signal);
    expect(state.calls).toBe(1);
    now += 10_001;
    state.down = true;
    const down = await auth(as(GOOD), signal);
    expect(down).toMatchObject({ ok: false, status: 503 });
    expect(messages(down)).not.toContain(GOOD);
    expect(state.calls).toBe(2);
  });

  it('keeps no more verdicts than its cache size', async () => {
    const { review, state } = reviewer();
    const auth = bearerAuth({ review, cacheSize: 2 });
    for (const t of ['a', 'b', 'c', 'a']) await auth(as(t), signal);
    // 'a' was dropped when 'c' came in: asked again.
    expect(state.calls).toBe(4);
  });
});

describe('status page behind bearer auth', () => {
  it('answers 401 with a Bearer challenge without a token or with a wrong one, 200 with the right one; any host then', async () => {
    const { review } = reviewer();
    const page = await startStatusPage({
      host: '0.0.0.0',
      port: 0,
      snapshot: () => data,
      authenticate: bearerAuth({ review }),
    });
    const url = page.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const none = await fetch(`${url}api/status`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const wrong = await fetch(`${url}api/status`, { headers: as('wrong') });
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).not.toContain('wrong');
      expect((await fetch(`${url}api/events`, { headers: as(OUTSIDER) })).status).toBe(403);
      // The page itself holds no data: it is served without a token, and asks for one.
      const html = await fetch(`${url}`);
      expect(html.status).toBe(200);
      expect(await html.text()).not.toContain('team-a/crawl');
      const ok = await fetch(`${url}api/status`, { headers: as(GOOD) });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as StatusPageData).pools[0]?.pool).toBe('team-a/crawl');
      // Still read-only with a good token; and no write is let through without one either.
      expect((await fetch(`${url}api/status`, { method: 'POST', headers: as(GOOD) })).status).toBe(405);
      expect((await fetch(`${url}api/status`, { method: 'DELETE' })).status).toBe(401);
    } finally {
      await page.close();
    }
  });

  it("ends an open live stream once its request is refused (the reader's right taken away)", async () => {
    const { review, state } = reviewer();
    const page = await startStatusPage({
      host: '127.0.0.1',
      port: 0,
      snapshot: () => data,
      authenticate: bearerAuth({ review, cacheMs: 0 }),
      recheckStreamsMs: 50,
    });
    try {
      const events = await fetch(`${page.url}api/events`, { headers: as(GOOD) });
      expect(events.status).toBe(200);
      const stream = events.body?.getReader();
      expect((await stream?.read())?.done).toBe(false);
      state.revoked.add(GOOD);
      // Read until the server ends it; a stream that stays open fails the test by its timeout.
      for (;;) if ((await stream?.read())?.done) break;
      expect((await fetch(`${page.url}api/status`, { headers: as(GOOD) })).status).toBe(403);
    } finally {
      await page.close();
    }
  });
});
