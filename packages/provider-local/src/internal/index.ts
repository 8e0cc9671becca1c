// Everything beside the public surface: the building blocks the package's own tests, the
// conformance harness and a curious reader use. Not covered by semver: names here may move.
export type { ProcessInfo, Spawned, SpawnSpec, Step, UserIds } from '../backend.js';
export { STEPS } from '../backend.js';
export { type Engine, resolveConfig } from '../config.js';
export { DEFAULT_TIMING, type Timing } from '../context.js';
export { type SquidConfInput, squidConf } from '../engines/squid.js';
export { formatId, ID_PREFIX, parseId } from '../id.js';
export {
  LOCAL_INSTANCES_DIR,
  LOCAL_STATE_FIELDS,
  LOCAL_STATE_FILE_SUFFIX,
  LOCAL_STATE_KIND,
} from '../marks.js';
export { createOsBackend } from '../os-backend.js';
export { LOCAL_RUNTIME_DIR, type StatePaths, statePaths } from '../paths.js';
export { portCandidates } from '../ports.js';
export { LOCAL_TYPE } from '../provider.js';
export { decodeState, encodeState, type InstanceRecord } from '../state-file.js';
