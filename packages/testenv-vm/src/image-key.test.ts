import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheRoot, proxyImageDir, proxyImageKey } from './image-key.js';
import { findProxyImageTools } from './tools-dir.js';

function scriptDir(tools: string, cache: string): string {
  const r = spawnSync('bash', [join(tools, 'build.sh'), '--print-dir'], {
    env: { ...process.env, EGRESS_PROXIES_CACHE: cache },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build.sh --print-dir failed: ${r.stderr}`);
  return r.stdout.trim();
}

describe('proxy image cache key', () => {
  let tmp: string;
  let tools: string;
  let cache: string;

  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'testenv-vm-key-'));
    tools = join(tmp, 'proxy-image');
    cache = join(tmp, 'cache');
    await cp(findProxyImageTools(), tools, { recursive: true });
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('is a SHA-256 that the build script computes identically', async () => {
    const key = await proxyImageKey(tools);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(scriptDir(tools, cache)).toBe(join(cache, 'proxy-image', key));
    expect(await proxyImageDir(tools, { EGRESS_PROXIES_CACHE: cache })).toBe(join(cache, 'proxy-image', key));
  });

  it('matches the script for the repository inputs too', async () => {
    const real = findProxyImageTools();
    expect(scriptDir(real, cache)).toBe(join(cache, 'proxy-image', await proxyImageKey(real)));
  });

  it('changes when an input file changes, and the script agrees', async () => {
    const before = await proxyImageKey(tools);
    await writeFile(join(tools, 'packages.txt'), 'linux-image-cloud-amd64\n', { flag: 'a' });
    const after = await proxyImageKey(tools);
    expect(after).not.toBe(before);
    expect(scriptDir(tools, cache)).toBe(join(cache, 'proxy-image', after));
  });

  it('changes when a nested input is edited or a file is added', async () => {
    const base = await proxyImageKey(tools);
    await writeFile(join(tools, 'rootfs', 'etc', 'hostname'), 'other\n');
    const edited = await proxyImageKey(tools);
    expect(edited).not.toBe(base);
    await writeFile(join(tools, 'rootfs', 'etc', 'extra.conf'), '');
    expect(await proxyImageKey(tools)).not.toBe(edited);
  });

  it('ignores timestamps and files outside the tools directory', async () => {
    const base = await proxyImageKey(tools);
    await utimes(join(tools, 'build.sh'), new Date(0), new Date(0));
    await writeFile(join(tmp, 'sibling.txt'), 'not an input');
    expect(await proxyImageKey(tools)).toBe(base);
  });

  it('rejects input names the listing format cannot carry', async () => {
    await writeFile(join(tools, 'bad name.txt'), '');
    await expect(proxyImageKey(tools)).rejects.toThrow(/bad name\.txt/);
  });

  it('keeps the cache under EGRESS_PROXIES_CACHE, else under HOME', () => {
    expect(cacheRoot({ EGRESS_PROXIES_CACHE: '/x/y' })).toBe('/x/y');
    expect(cacheRoot({ HOME: '/home/u' })).toBe('/home/u/.cache/egress-proxies');
  });
});
