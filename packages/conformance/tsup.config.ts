import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

// Two entries: the kit (imports vitest, for test files) and the reference provider (no vitest, usable at runtime).
export default defineConfig(
  libraryBuild({ index: 'src/index.ts', reference: 'src/reference/index.ts' }, { external: ['vitest'] }),
);
