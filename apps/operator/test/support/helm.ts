import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KubeControlPlane, kubeToolEnv } from '@egress-proxies/testenv-kube';
import { parse, parseAllDocuments } from 'yaml';

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

/** The environment for helm and kubectl against a test's API server (their caches and homes in `dir`). */
export const toolEnv = kubeToolEnv;

/** A private temp dir holding an admin kubeconfig for `cp`, for helm and kubectl. */
export function kubeconfigDir(cp: KubeControlPlane, prefix: string): KubeconfigDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  return { dir, kubeconfig, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The Role the chart gives `pool`'s gateway in `namespace`, rendered by the real helm (`sets`: more --set values). */
export function chartGatewayRules(pool: string, namespace: string, sets: string[] = []): unknown[] {
  const r = spawnSync(
    ensureHelm(),
    [
      'template',
      'x',
      join(__dirname, '..', '..', '..', '..', 'chart'),
      '-n',
      'egress-proxies-system',
      '--set',
      `gateways[0].pool=${pool}`,
      '--set',
      `gateways[0].namespace=${namespace}`,
      ...sets.flatMap((s) => ['--set', s]),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  const role = parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; rules?: unknown[] })
    .find((d) => d?.kind === 'Role' && d.metadata?.name === `${pool}-gateway`);
  if (!role?.rules) throw new Error('the chart rendered no gateway Role');
  return role.rules;
}

/**
 * The chart's NOTES.txt as `helm install` prints it for `release` in `namespace` with more helm
 * `args` (`--set ...`, `-f ...`). A dry-run install needs a cluster, so it is rendered by the same
 * engine in a copy of the chart under `dir`: as a template's string value (`tpl`, same context).
 */
export function chartNotes(dir: string, release: string, namespace: string, args: string[] = []): string {
  const copy = join(dir, 'notes-chart');
  if (!existsSync(copy)) {
    cpSync(join(__dirname, '..', '..', '..', '..', 'chart'), copy, { recursive: true });
    cpSync(join(copy, 'templates', 'NOTES.txt'), join(copy, 'notes-source.txt'));
    writeFileSync(
      join(copy, 'templates', 'zz-notes.yaml'),
      'notes: {{ tpl (.Files.Get "notes-source.txt") . | toJson }}\n',
    );
  }
  const r = spawnSync(
    ensureHelm(),
    ['template', release, copy, '-n', namespace, '--show-only', 'templates/zz-notes.yaml', ...args],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`helm template (NOTES) failed: ${r.stderr}`);
  return (parse(r.stdout) as { notes: string }).notes;
}
