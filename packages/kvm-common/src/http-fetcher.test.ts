import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorKind, ProviderError } from '@egress-proxies/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetcher } from './http-fetcher.js';
import { type ImageServer, startImageServer } from './test/real-helpers.js';

let server: ImageServer;
let dir: string;
const data = randomBytes(100_000);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fetcher-test-'));
  writeFileSync(join(dir, 'img'), data);
  server = await startImageServer({ img: join(dir, 'img') });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const failure = (url: string) =>
  httpFetcher(url, {}).then(
    () => undefined,
    (e: unknown) => e as ProviderError,
  );

describe('httpFetcher', () => {
  it('opens a download with its Content-Length and streams the body', async () => {
    const res = await httpFetcher(`${server.base}/img`, {});
    expect(res.contentLength).toBe(data.length);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });
  it('no Content-Length is Permanent and says so', async () => {
    const err = await failure(`${server.base}/chunked/img`);
    expect(err?.kind).toBe(ErrorKind.Permanent);
    expect(err?.message).toMatch(/Content-Length/);
  });
  it('404 is Permanent, 503 and 429 are Transient', async () => {
    expect((await failure(`${server.base}/status/404`))?.kind).toBe(ErrorKind.Permanent);
    expect((await failure(`${server.base}/status/503`))?.kind).toBe(ErrorKind.Transient);
    expect((await failure(`${server.base}/status/429`))?.kind).toBe(ErrorKind.Transient);
  });
  it('a refused connection is Transient', async () => {
    const err = await failure('http://127.0.0.1:1/img');
    expect(ProviderError.isInstance(err)).toBe(true);
    expect(err?.kind).toBe(ErrorKind.Transient);
  });
  it('an aborted signal rejects promptly', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(httpFetcher(`${server.base}/img`, { signal: ac.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});
