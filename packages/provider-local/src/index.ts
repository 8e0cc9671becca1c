export type { LocalBackend, ProcessInfo, Spawned, SpawnSpec, Step, UserIds } from './backend.js';
export { STEPS } from './backend.js';
export { LocalCheckReason } from './check.js';
export {
  type Engine,
  LOCAL_DEFAULTS,
  type LocalConfig,
  type LocalConfigInput,
  localConfigSchema,
  resolveConfig,
} from './config.js';
export { DEFAULT_TIMING, type Timing } from './context.js';
export { type SquidConfInput, squidConf } from './engines/squid.js';
export { LocalErrorCode } from './errors.js';
export { localProviderFactory } from './factory.js';
export { formatId, ID_PREFIX, parseId } from './id.js';
export type { LocalInstance } from './instance.js';
export {
  LOCAL_INSTANCES_DIR,
  LOCAL_STATE_FIELDS,
  LOCAL_STATE_FILE_SUFFIX,
  LOCAL_STATE_KIND,
} from './marks.js';
export { createOsBackend } from './os-backend.js';
export { LOCAL_RUNTIME_DIR, type StatePaths, statePaths } from './paths.js';
export { portCandidates } from './ports.js';
export { localProfile } from './profile.js';
export {
  createLocalProvider,
  LOCAL_TYPE,
  LocalProvider,
  type LocalProviderOptions,
} from './provider.js';
export { decodeState, encodeState, type InstanceRecord } from './state-file.js';
