import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

// `shims` gives the CJS build an import.meta.url, which loads the OpenTelemetry API on first use.
export default defineConfig(
  libraryBuild(
    { index: 'src/index.ts', 'providers-file/index': 'src/providers-file/index.ts' },
    { shims: true },
  ),
);
