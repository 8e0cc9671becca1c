import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig([
  libraryBuild(['src/index.ts']),
  // The CLI: ESM only, the shebang kept; split, so each command's imports load only when it runs.
  { ...libraryBuild(['src/main.ts']), format: ['esm'], dts: false, clean: false, splitting: true },
]);
