import { spawnSync } from 'node:child_process';

/**
 * The external ISO readers the tests use as judges, with the Debian package that provides
 * each. The system python is named explicitly: another python3 earlier on PATH may lack
 * pycdlib.
 */
export const PYTHON = '/usr/bin/python3';

const TOOLS: ReadonlyArray<{ name: string; pkg: string; probe: [string, string[]] }> = [
  { name: 'isoinfo', pkg: 'genisoimage', probe: ['sh', ['-c', 'command -v isoinfo']] },
  { name: 'genisoimage', pkg: 'genisoimage', probe: ['sh', ['-c', 'command -v genisoimage']] },
  { name: 'isovfy', pkg: 'genisoimage', probe: ['sh', ['-c', 'command -v isovfy']] },
  { name: 'xorriso', pkg: 'xorriso', probe: ['sh', ['-c', 'command -v xorriso']] },
  { name: 'bsdtar', pkg: 'libarchive-tools', probe: ['sh', ['-c', 'command -v bsdtar']] },
  { name: '7z', pkg: 'p7zip-full', probe: ['sh', ['-c', 'command -v 7z']] },
  { name: 'blkid', pkg: 'util-linux', probe: ['sh', ['-c', 'command -v blkid']] },
  { name: 'pycdlib', pkg: 'python3-pycdlib', probe: [PYTHON, ['-c', 'import pycdlib']] },
  // Not an ISO reader: the YAML parser cloud-init itself uses, judging meta-data.
  { name: 'PyYAML', pkg: 'python3-yaml', probe: [PYTHON, ['-c', 'import yaml']] },
];

function missingTools(): typeof TOOLS {
  return TOOLS.filter(({ probe }) => spawnSync(probe[0], probe[1], { stdio: 'ignore' }).status !== 0);
}

let ensured = false;

/**
 * Makes sure every judge is installed, installing the missing Debian packages with apt-get
 * (as root) when needed. Throws with the reason when it cannot: a judge that is absent must
 * fail the suite, never skip it.
 */
export function ensureJudges(): void {
  if (ensured) return;
  let missing = missingTools();
  if (missing.length > 0) {
    const pkgs = [...new Set(missing.map((t) => t.pkg))];
    const names = missing.map((t) => t.name).join(', ');
    if (process.getuid?.() !== 0) {
      throw new Error(`ISO judges missing (${names}); installing ${pkgs.join(' ')} needs root`);
    }
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const lock = ['-o', 'DPkg::Lock::Timeout=300'];
    for (const args of [
      [...lock, 'update'],
      [...lock, 'install', '-y', ...pkgs],
    ]) {
      const r = spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: 600_000 });
      if (r.status !== 0) {
        const why = r.error
          ? String(r.error)
          : (r.stderr || r.stdout).trim().split('\n').slice(-5).join('\n');
        throw new Error(`ISO judges missing (${names}); apt-get ${args.slice(2).join(' ')} failed:\n${why}`);
      }
    }
    missing = missingTools();
    if (missing.length > 0) {
      throw new Error(
        `ISO judges still missing after apt-get install: ${missing.map((t) => t.name).join(', ')}`,
      );
    }
  }
  ensured = true;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs a judge and returns its output; any failure throws with the command and its stderr. */
export function run(cmd: string, args: readonly string[], options: { cwd?: string } = {}): RunResult {
  const r = spawnSync(cmd, args, {
    cwd: options.cwd,
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
    env: { ...process.env, LC_ALL: 'C' },
  });
  const stderr = r.stderr?.toString('utf8') ?? '';
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.error ?? `exit ${r.status}`}): ${stderr.trim()}`);
  }
  return { stdout: r.stdout, stderr };
}

export function runText(cmd: string, args: readonly string[], options: { cwd?: string } = {}): string {
  return run(cmd, args, options).stdout.toString('utf8');
}
