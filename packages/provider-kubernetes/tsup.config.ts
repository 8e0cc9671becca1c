import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig(
  libraryBuild({
    index: 'src/index.ts',
    'test/index': 'src/test/index.ts',
    'internal/index': 'src/internal/index.ts',
  }),
);
