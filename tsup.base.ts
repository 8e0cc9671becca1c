import type { Options } from 'tsup';

// One build shape for every publishable package: ESM + CJS + .d.ts/.d.cts, Node 20 target.
export function libraryBuild(
  entry: Record<string, string> | string[] = ['src/index.ts'],
  extra: Options = {},
): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    ...extra,
  };
}
