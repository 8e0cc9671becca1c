import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig([
  libraryBuild(['src/index.ts']),
  // The CLI: ESM only, one file, the shebang kept.
  { ...libraryBuild(['src/main.ts']), format: ['esm'], dts: false, clean: false },
]);
