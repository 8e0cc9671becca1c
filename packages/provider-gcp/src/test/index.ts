export {
  backendControl,
  CONFORMANCE_ZONES,
  GCP_CHECK_REASONS,
  GCP_STATE_TABLE,
  gcpConformanceHarness,
} from './conformance-harness.js';
export {
  type FakeCall,
  FakeCompute,
  type FakeComputeOptions,
  type FaultSpec,
  STEPS,
  type Step,
  type Timings,
} from './fake-compute.js';
export { computeErrors, type FakeError } from './fake-errors.js';
