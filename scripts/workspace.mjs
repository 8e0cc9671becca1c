// The workspace's packages, read from the directories pnpm-workspace.yaml names.
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
