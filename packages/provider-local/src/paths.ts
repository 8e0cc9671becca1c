import { join } from 'node:path';
import { LOCAL_INSTANCES_DIR, LOCAL_STATE_FILE_SUFFIX } from './marks.js';

/** Where runtime files (generated config, logs, pid files) live, one directory per instance. */
export const LOCAL_RUNTIME_DIR = 'run';

/** Every path the provider derives from the state directory; pure, so tests and docs agree. */
export interface StatePaths {
  readonly stateDir: string;
  readonly instancesDir: string;
  readonly runtimeRoot: string;
  stateFile(name: string): string;
  runtimeDir(name: string): string;
}

export function statePaths(stateDir: string): StatePaths {
  const instancesDir = join(stateDir, LOCAL_INSTANCES_DIR);
  const runtimeRoot = join(stateDir, LOCAL_RUNTIME_DIR);
  return {
    stateDir,
    instancesDir,
    runtimeRoot,
    stateFile: (name) => join(instancesDir, `${name}${LOCAL_STATE_FILE_SUFFIX}`),
    runtimeDir: (name) => join(runtimeRoot, name),
  };
}
