import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  dir: string;
}

/** The repository root: tools/ lives there. */
export function repoRoot(): string {
  // dist/ or src/ of packages/testenv-kube, three levels below the repository root.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'tools', 'build-control-plane.sh'))) return dir;
    dir = resolve(dir, '..');
  }
  throw new Error('testenv-kube: cannot find tools/build-control-plane.sh above this package');
}

/**
 * Runs one of the repository's build scripts and resolves with the last line it printed (the
 * artifact's path). A failure rejects with `what` and the tail of the script's stderr.
 */
export function runBuildScript(
  script: string,
  args: string[],
  what: string,
  opts: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [join(repoRoot(), script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
      env: { ...process.env, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false', ...opts.env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-8000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last) {
        reject(new Error(`${what} failed (exit ${code})\n${err}`));
        return;
      }
      resolvePromise(last);
    });
  });
}

/**
 * Builds (once, cached by the hash of the wrapper modules and the Go version) and returns the
 * etcd and kube-apiserver binaries. A failed build throws with the tail of Go's output: the
 * suites that need a control plane fail loudly instead of skipping.
 */
export async function ensureControlPlaneBinaries(
  opts: { signal?: AbortSignal } = {},
): Promise<ControlPlaneBinaries> {
  const dir = await runBuildScript(
    'tools/build-control-plane.sh',
    [],
    'building etcd and kube-apiserver from Go modules (is Go >= 1.24 on PATH and the Go module proxy reachable?)',
    opts,
  );
  return { dir, etcd: join(dir, 'etcd'), kubeApiserver: join(dir, 'kube-apiserver') };
}

/**
 * Builds one wrapper module under tools/ (`kube-node`, `otelcol`, `pause`) from Go modules,
 * cached by input hash, and returns the binary's path.
 */
export function ensureGoTool(
  name: 'kube-node' | 'otelcol' | 'pause',
  opts: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return runBuildScript(
    'tools/build-go-tool.sh',
    [name],
    `building tools/${name} from Go modules (is Go >= 1.24 on PATH and the Go module proxy reachable?)`,
    opts,
  );
}
