import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestEnvVmError } from './errors.js';

const RELATIVE = join('tools', 'proxy-image');

function moduleDir(): string | undefined {
  // The CommonJS build has no import.meta.url; the working directory search covers it.
  try {
    return import.meta.url ? dirname(fileURLToPath(import.meta.url)) : undefined;
  } catch {
    return undefined;
  }
}

/** The repository's tools/proxy-image directory: searched upwards from this module, then from the cwd. */
export function findProxyImageTools(): string {
  const starts = [moduleDir(), process.cwd()].filter((d): d is string => d !== undefined);
  for (const start of starts) {
    let dir = start;
    for (let i = 0; i < 8; i++) {
      const candidate = join(dir, RELATIVE);
      if (existsSync(join(candidate, 'build.sh'))) return candidate;
      const up = resolve(dir, '..');
      if (up === dir) break;
      dir = up;
    }
  }
  throw new TestEnvVmError(
    'PREREQUISITE_MISSING',
    `cannot find ${RELATIVE}/build.sh above ${starts.join(' or ')}; pass toolsDir explicitly`,
  );
}
