import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig(
  libraryBuild({ index: 'src/index.ts', 'providers-file/index': 'src/providers-file/index.ts' }),
);
