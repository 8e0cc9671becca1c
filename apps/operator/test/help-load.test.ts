import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAIN } from './support/run-cli.js';

// `--help` and a mistyped command are answered from the command table alone: none of the
// packages a command needs when it runs (the metrics registry, the Kubernetes client, tracing)
// is loaded for them. What the CLI loads is read from Node's own module resolution.
const HOOKS = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  process.stderr.write('resolved ' + r.url + '\\n');
  return r;
}`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

function resolvedBy(args: string[]): string[] {
  const r = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, MAIN, ...args],
    {
      encoding: 'utf8',
    },
  );
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('resolved '))
    .map((l) => l.slice('resolved '.length));
}

const HEAVY = ['prom-client', '@kubernetes/client-node', '@opentelemetry/'];

describe('what the CLI loads to print help', () => {
  it.each([[['--help']], [['up', '--help']], [['gateway', '--help']], [['uo']]])(
    '%j loads none of the runtime packages',
    (args) => {
      const urls = resolvedBy(args);
      // The hook saw the CLI's own entry, so an empty list cannot pass for "nothing heavy".
      expect(urls.some((u) => u.endsWith('/dist/main.js'))).toBe(true);
      expect(urls.filter((u) => HEAVY.some((h) => u.includes(`/node_modules/${h}`)))).toEqual([]);
    },
  );
});
