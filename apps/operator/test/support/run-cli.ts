import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

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

/** Runs the built CLI without blocking the worker (a slow command would starve vitest's RPC). */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
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
