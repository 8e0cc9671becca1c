// The workspace's packages, read from the directories pnpm-workspace.yaml names.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function workspacePackages() {
  const out = [];
  for (const group of ['packages', 'apps']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const file = join(base, name, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      out.push({ dir: join(base, name), rel: `${group}/${name}`, manifest });
    }
  }
  return out;
}

export const publishable = () => workspacePackages().filter((p) => !p.manifest.private);

/**
 * How to run the pinned pnpm: the one that launched this script (`pnpm bench`), the one on PATH
 * when it is the pinned version, or npx (corepack's signature check fails on some registries).
 */
export function pnpmCommand() {
  const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.replace(
    /^pnpm@/,
    '',
  );
  const launcher = process.env.npm_execpath ?? '';
  if (/pnpm/.test(launcher) && launcher.endsWith('.cjs')) return [process.execPath, [launcher]];
  const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() === pinned) return ['pnpm', []];
  return ['npx', ['--yes', `pnpm@${pinned}`]];
}
