import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeControlPlane, KubeUser } from '@egress-proxies/testenv-kube';

export const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

/** MAIN, failing loudly when the package is not built (tests run the built CLI). */
function builtMain(): string {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  return MAIN;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The words of `up --demo` over one documents file, a providers file and a state dir. */
export const upDemoArgs = (docs: string, providers: string, stateDir: string): string[] => [
  'up',
  '-f',
  docs,
  '--providers',
  providers,
  '--state-dir',
  stateDir,
  '--demo',
];

/**
 * The argv (after node) of the built operator's `run` against `cp` as `user` (the admin when
 * none) with an empty providers config, both files written in `dir`; `more` flags follow.
 */
export function operatorRunArgs(
  o: { cp: KubeControlPlane; dir: string; installation: string; user?: KubeUser },
  more: string[],
): string[] {
  const kubeconfig = join(o.dir, `kubeconfig-${o.installation}`);
  const providers = join(o.dir, 'providers.yaml');
  writeFileSync(kubeconfig, o.cp.kubeconfig(o.user));
  writeFileSync(providers, '[]\n');
  return [
    builtMain(),
    'run',
    '--kubeconfig',
    kubeconfig,
    '--providers-config',
    providers,
    '--installation-id',
    o.installation,
    ...more,
  ];
}

/** Runs the built CLI without blocking the worker (a slow command would starve vitest's RPC). */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const main = builtMain();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
