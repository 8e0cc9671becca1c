import { describe, expect, it } from 'vitest';
import type { StatusPageData } from './page-data.js';
import { startStatusPage } from './status-page-server.js';

const data = (ready: number): StatusPageData => ({
  updatedAt: new Date().toISOString(),
  pools: [{ pool: 'default/p', desired: 2, ready, members: [] }],
});

describe('status page server', () => {
  it('refuses a non-loopback host, naming it', async () => {
    await expect(startStatusPage({ host: '0.0.0.0', port: 0, snapshot: () => data(0) })).rejects.toThrow(
      /status page host "0\.0\.0\.0": only a loopback address/,
    );
  });

  it('serves the JSON, refuses writes, and sends a change as an event', async () => {
    let ready = 0;
    const page = await startStatusPage({
      host: '127.0.0.1',
      port: 0,
      snapshot: () => data(ready),
      intervalMs: 20,
    });
    try {
      expect(((await (await fetch(`${page.url}api/status`)).json()) as StatusPageData).pools[0]?.ready).toBe(
        0,
      );
      expect((await fetch(`${page.url}api/status`, { method: 'POST' })).status).toBe(405);
      expect((await fetch(`${page.url}nope`)).status).toBe(404);
      const html = await fetch(page.url);
      expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
      const events = await fetch(`${page.url}api/events`);
      const reader = (events.body as ReadableStream<Uint8Array>).getReader();
      const next = async () => {
        const { value } = await reader.read();
        // The first is the whole data, then patches: each carries every pool's counts.
        return JSON.parse(
          new TextDecoder().decode(value).replace(/^(event: patch\n)?data: /, ''),
        ) as StatusPageData;
      };
      expect((await next()).pools[0]?.ready).toBe(0);
      ready = 2;
      expect((await next()).pools[0]?.ready).toBe(2);
      await reader.cancel();
    } finally {
      await page.close();
    }
  });
});
