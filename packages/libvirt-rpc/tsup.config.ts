import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig(
  // Split, so the main entry and ./codes share one copy of the error classes (instanceof holds
  // across them) instead of each bundling its own.
  libraryBuild({ index: 'src/index.ts', codes: 'src/codes.ts' }, { splitting: true }),
);
