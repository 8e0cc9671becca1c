import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

// `shims` gives the CJS build an import.meta.url, which finds the runner script shipped beside dist.
export default defineConfig(
  libraryBuild(
    { index: 'src/index.ts', 'test/index': 'src/test/index.ts', 'internal/index': 'src/internal/index.ts' },
    { shims: true },
  ),
);
