export type { CaseGroup, ConformanceCase } from './case.js';
export { DEFAULT_CASE_TIMEOUT_MS } from './case.js';
export { conformanceCases } from './cases/index.js';
export type { CaseContext, RequestOverrides } from './context.js';
export {
  type Awaitable,
  type BackendCall,
  type BackendControl,
  type BackendInstanceView,
  type BackendResourceView,
  type ExtraFault,
  FAULT_KINDS,
  type FaultKind,
  type InjectableFault,
  type MarkVariant,
  OPTIONAL_FAULT_KINDS,
  type OptionalFaultKind,
  type SeedSpec,
  START_FAULTS,
  type StartFault,
  type StateRow,
  type StepGate,
} from './control.js';
export { type DescribeOptions, describeProviderConformance, type SuiteApi } from './describe.js';
export { CaseSkipped, ConformanceFailure } from './failure.js';
export type {
  ConformanceConfig,
  ConformanceFixture,
  ConformanceHarness,
  PlacementField,
  SetupInfo,
} from './fixture.js';
export { createStepGate, type ManagedGate } from './gate.js';
export { renderConformanceList } from './render-list.js';
export { RULE_CASES, type RuleCases, renderRuleCases, ruleCaseProblems } from './rule-cases.js';
export {
  type CaseOutcome,
  type CaseStatus,
  type RunOptions,
  runConformance,
  type SelectOptions,
} from './run.js';
export { installSpanRecorder, type RecordedSpan, type SpanRecorder } from './span-recorder.js';
