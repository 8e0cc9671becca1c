#!/usr/bin/env node
// `pnpm e2e:kube`: the cluster end-to-end run (see docs/e2e.md). Builds come first (turbo), so dist exists.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runE2eKube } from '../dist/index.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
let code = 1;
try {
  code = await runE2eKube({
    packageDir,
    reportPath: join(packageDir, '..', '..', 'docs', 'e2e.md'),
    vitestArgs: process.argv.slice(2),
  });
} catch (err) {
  // The machine cannot host the run (no root, a build that fails ...): say why and fail, never skip.
  process.stderr.write(`[e2e-kube] FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
}
process.exit(code);
