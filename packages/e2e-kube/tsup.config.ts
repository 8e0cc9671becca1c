import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig(libraryBuild());
