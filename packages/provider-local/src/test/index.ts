export { ControlledBackend, errnoError, FAULT_ERRNO, type RecordedCall } from './controlled-backend.js';
export {
  createLocalHarness,
  LOCAL_CHECK_CONDITIONS,
  LOCAL_STATE_TABLE,
  type LocalHarnessOptions,
  localControl,
  tearDownStateDir,
} from './harness.js';
