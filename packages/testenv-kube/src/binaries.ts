import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  dir: string;
}

function repoRoot(): string {
  // dist/ or src/ of packages/testenv-kube, three levels below the repository root.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'tools', 'build-control-plane.sh'))) return dir;
    dir = resolve(dir, '..');
  }
  throw new Error('testenv-kube: cannot find tools/build-control-plane.sh above this package');
}

/**
 * Builds (once, cached by the hash of the wrapper modules and the Go version) and returns the
 * etcd and kube-apiserver binaries. A failed build throws with the tail of Go's output: the
 * suites that need a control plane fail loudly instead of skipping.
 */
export function ensureControlPlaneBinaries(
  opts: { signal?: AbortSignal } = {},
): Promise<ControlPlaneBinaries> {
  const script = join(repoRoot(), 'tools', 'build-control-plane.sh');
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
      env: { ...process.env, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
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
      const dir = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !dir) {
        reject(
          new Error(
            `building etcd and kube-apiserver from Go modules failed (exit ${code}); is Go >= 1.24 on PATH and the Go module proxy reachable?\n${err}`,
          ),
        );
        return;
      }
      resolvePromise({ dir, etcd: join(dir, 'etcd'), kubeApiserver: join(dir, 'kube-apiserver') });
    });
  });
}
