import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyImageDir } from './image-key.js';
import { findProxyImageTools } from './tools-dir.js';

// The parts of the real build script that run without building: argument handling and the
// cache hit. The build itself is exercised by the boot test.
describe('tools/proxy-image/build.sh', () => {
  const tools = findProxyImageTools();
  let cache: string;

  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'testenv-vm-script-'));
  });
  afterAll(async () => {
    await rm(cache, { recursive: true, force: true });
  });

  function run(args: string[]) {
    return spawnSync('bash', [join(tools, 'build.sh'), ...args], {
      env: { ...process.env, EGRESS_PROXIES_CACHE: cache },
      encoding: 'utf8',
    });
  }

  it('rejects an unknown argument, naming it and the step', () => {
    const r = run(['--frobnicate']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("FAILED in step 'start': unknown argument: --frobnicate");
    expect(r.stdout).toBe('');
  });

  it('prints the cached directory and builds nothing when the image is there', async () => {
    const dir = await proxyImageDir(tools, { EGRESS_PROXIES_CACHE: cache });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'proxy.qcow2'), 'x');
    await writeFile(join(dir, 'proxy.qcow2.sha256'), 'y');
    const r = run([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${dir}\n`);
    expect(r.stderr).toBe('');
  });
});
