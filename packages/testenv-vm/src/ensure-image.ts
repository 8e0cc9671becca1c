import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TestEnvVmError } from './errors.js';
import { proxyImageDir } from './image-key.js';
import { findProxyImageTools } from './tools-dir.js';

export interface ProxyImage {
  /** The base image (qcow2). Never boot it directly: bootVm puts an overlay on top. */
  path: string;
  /** SHA-256 of the qcow2 file, as recorded beside it at build time. */
  sha256: string;
  sizeBytes: number;
  /** The cache directory, `<cache>/proxy-image/<input hash>`. */
  dir: string;
  /** How long the build that made this image took, when it was recorded. */
  build?: { seconds: number; finishedAt: string };
}

const BUILD_RECORD = 'build.json';

export interface EnsureProxyImageOptions {
  signal?: AbortSignal;
  /** The tools/proxy-image directory; found above this package by default. */
  toolsDir?: string;
  /** Re-hash the image and compare it with the recorded digest. */
  verify?: boolean;
  /** Receives the build's progress lines (stderr) while a build runs. */
  onLog?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const IMAGE = 'proxy.qcow2';

async function readImage(dir: string, verify: boolean): Promise<ProxyImage | undefined> {
  const path = join(dir, IMAGE);
  let recorded: string;
  let sizeBytes: number;
  try {
    recorded = (await readFile(`${path}.sha256`, 'utf8')).trim().split(/\s+/)[0] ?? '';
    sizeBytes = (await stat(path)).size;
  } catch {
    return undefined;
  }
  if (!/^[0-9a-f]{64}$/.test(recorded)) {
    throw new TestEnvVmError('IMAGE_INVALID', `${path}.sha256 does not hold a SHA-256 digest`);
  }
  if (verify) {
    const actual = await sha256File(path);
    if (actual !== recorded) {
      throw new TestEnvVmError(
        'IMAGE_INVALID',
        `${path} has SHA-256 ${actual} but ${recorded} was recorded; delete ${dir} to rebuild`,
      );
    }
  }
  const build = await readBuildRecord(dir);
  return { path, sha256: recorded, sizeBytes, dir, ...(build ? { build } : {}) };
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function runBuild(script: string, opts: EnsureProxyImageOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason);
      return;
    }
    // Low priority: the build is CPU-heavy and the machine is shared. Own process group, so an
    // abort reaches debootstrap and apt too; the script's exit trap then removes its temp tree.
    const child = spawn('nice', ['-n', '10', 'bash', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: opts.env ?? process.env,
    });
    let out = '';
    let errTail = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      errTail = (errTail + text).slice(-6000);
      if (opts.onLog) {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) opts.onLog(line);
      }
    });
    const onAbort = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new TestEnvVmError('IMAGE_BUILD_FAILED', `cannot run ${script}: ${e.message}`, { cause: e }));
    });
    child.on('close', (code, sig) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) {
        reject(opts.signal.reason);
        return;
      }
      const dir = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !dir) {
        const why = sig ? `signal ${sig}` : `exit code ${code}`;
        reject(new TestEnvVmError('IMAGE_BUILD_FAILED', `${script} failed (${why}):\n${errTail}`));
        return;
      }
      resolve(dir);
    });
  });
}

/**
 * Returns the proxy VM image, building it first when the cache has none for the current
 * inputs. A build takes minutes and needs root; concurrent callers share one build.
 */
export async function ensureProxyImage(opts: EnsureProxyImageOptions = {}): Promise<ProxyImage> {
  opts.signal?.throwIfAborted();
  const toolsDir = opts.toolsDir ?? findProxyImageTools();
  const expected = await proxyImageDir(toolsDir, opts.env);
  const cached = await readImage(expected, opts.verify ?? false);
  if (cached) return cached;
  const started = performance.now();
  const dir = await runBuild(join(toolsDir, 'build.sh'), opts);
  if (dir !== expected) {
    throw new TestEnvVmError(
      'IMAGE_BUILD_FAILED',
      `the build script reported ${dir} but the inputs hash to ${expected}; did the inputs change during the build?`,
    );
  }
  // Reports quote the build time of the cached image later, when nothing is rebuilt.
  await writeFile(
    join(dir, BUILD_RECORD),
    `${JSON.stringify({ seconds: Math.round((performance.now() - started) / 100) / 10, finishedAt: new Date().toISOString() })}\n`,
  );
  const built = await readImage(dir, opts.verify ?? false);
  if (!built)
    throw new TestEnvVmError('IMAGE_BUILD_FAILED', `the build finished but ${dir}/${IMAGE} is missing`);
  return built;
}

async function readBuildRecord(dir: string): Promise<ProxyImage['build']> {
  try {
    const r = JSON.parse(await readFile(join(dir, BUILD_RECORD), 'utf8')) as Record<string, unknown>;
    if (typeof r.seconds === 'number' && typeof r.finishedAt === 'string') {
      return { seconds: r.seconds, finishedAt: r.finishedAt };
    }
  } catch {
    // No record: an image built before builds were timed.
  }
  return undefined;
}
