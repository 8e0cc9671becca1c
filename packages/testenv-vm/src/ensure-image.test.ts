import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureProxyImage } from './ensure-image.js';
import { TestEnvVmError } from './errors.js';
import { proxyImageDir } from './image-key.js';

// Stand-in build scripts exercise the wrapper: caching, reporting, verification and abort.
// The real script is exercised by the boot test.
const PUBLISHING = `#!/usr/bin/env bash
set -euo pipefail
echo "building" >&2
mkdir -p "$OUT_DIR"
printf 'qcow2-bytes' > "$OUT_DIR/proxy.qcow2"
(cd "$OUT_DIR" && sha256sum proxy.qcow2 > proxy.qcow2.sha256)
echo "$(( $(cat "$COUNT_FILE" 2>/dev/null || echo 0) + 1 ))" > "$COUNT_FILE"
echo "$OUT_DIR"
`;

describe('ensureProxyImage', () => {
  let tmp: string;
  let tools: string;
  let env: NodeJS.ProcessEnv;

  async function useScript(text: string) {
    await writeFile(join(tools, 'build.sh'), text);
    const out = await proxyImageDir(tools, env);
    env.OUT_DIR = out;
    return out;
  }

  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'testenv-vm-ensure-'));
    tools = join(tmp, 'tools');
    await mkdir(tools);
    env = {
      PATH: process.env.PATH,
      EGRESS_PROXIES_CACHE: join(tmp, 'cache'),
      COUNT_FILE: join(tmp, 'count'),
    };
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('builds once, reports path, digest and size, then reuses the cache', async () => {
    const out = await useScript(PUBLISHING);
    const lines: string[] = [];
    const first = await ensureProxyImage({ toolsDir: tools, env, onLog: (l) => lines.push(l) });
    expect(first).toEqual({
      path: join(out, 'proxy.qcow2'),
      dir: out,
      sizeBytes: 11,
      sha256: createHash('sha256').update('qcow2-bytes').digest('hex'),
      // The build's duration is recorded beside the image, for reports of later cached runs.
      build: { seconds: expect.any(Number), finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    expect(lines).toContain('building');
    const second = await ensureProxyImage({ toolsDir: tools, env, verify: true });
    expect(second).toEqual(first);
    expect((await readFile(join(tmp, 'count'), 'utf8')).trim()).toBe('1');
  });

  it('fails with the script output when the build fails', async () => {
    await useScript('#!/usr/bin/env bash\necho "proxy-image: FAILED in step debootstrap" >&2\nexit 3\n');
    const err = await ensureProxyImage({ toolsDir: tools, env }).catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err) && err.code).toBe('IMAGE_BUILD_FAILED');
    expect((err as Error).message).toMatch(/exit code 3[\s\S]*FAILED in step debootstrap/);
  });

  it('refuses a build that reports another directory', async () => {
    await useScript(PUBLISHING);
    env.OUT_DIR = join(tmp, 'elsewhere');
    await expect(ensureProxyImage({ toolsDir: tools, env })).rejects.toThrow(/reported .*elsewhere/);
  });

  it('detects an image that no longer matches its recorded digest when asked to verify', async () => {
    const out = await useScript(PUBLISHING);
    await ensureProxyImage({ toolsDir: tools, env });
    await writeFile(join(out, 'proxy.qcow2'), 'tampered');
    const err = await ensureProxyImage({ toolsDir: tools, env, verify: true }).catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err) && err.code).toBe('IMAGE_INVALID');
  });

  it('stops a running build when aborted', async () => {
    await useScript(
      `#!/usr/bin/env bash\ntrap 'echo cleaned > "${join(tmp, 'trap')}"; exit 1' TERM\nsleep 30 & wait\n`,
    );
    const ac = new AbortController();
    const pending = ensureProxyImage({ toolsDir: tools, env, signal: ac.signal });
    setTimeout(() => ac.abort(new Error('cancelled')), 300);
    await expect(pending).rejects.toThrow('cancelled');
    // The script's own TERM trap ran: the signal reached the build, not just the wrapper.
    expect(await readFile(join(tmp, 'trap'), 'utf8')).toBe('cleaned\n');
  });
});
