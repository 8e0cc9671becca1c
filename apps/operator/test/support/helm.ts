import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';

/** helm, built from its Go module once per machine (cached) like the control plane; its path. */
export function ensureHelm(): string {
  return execFileSync('bash', [join(__dirname, '..', '..', 'scripts', 'ensure-helm.sh')], {
    encoding: 'utf8',
  }).trim();
}

export interface KubeconfigDir {
  dir: string;
  kubeconfig: string;
  /** Removes the directory. */
  remove(): void;
}

/** A private temp dir holding an admin kubeconfig for `cp`, for helm and kubectl. */
export function kubeconfigDir(cp: KubeControlPlane, prefix: string): KubeconfigDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  return { dir, kubeconfig, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
