import type { Options } from 'tsup';

// One build shape for every publishable package: ESM + CJS + .d.ts/.d.cts, Node 20 target.
// EGRESS_PROXIES_SKIP_DTS=1 leaves the declarations out: the operator image runs the JavaScript
// only, and declaration builds are most of its build time.
export function libraryBuild(
  entry: Record<string, string> | string[] = ['src/index.ts'],
  extra: Options = {},
): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: process.env.EGRESS_PROXIES_SKIP_DTS !== '1',
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    ...extra,
  };
}
