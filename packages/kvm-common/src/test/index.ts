// The address sources by number, for checking the order a flavour asks them in.
export { DomainInterfaceAddressesSource } from 'libvirt-rpc-ts';
export { KVM_EGRESS_CASES, kvmEgressConformanceHarness } from './egress-harness.js';
export {
  FAKE_HOST_CONDITIONS,
  type FakeCall,
  FakeConnection,
  type FakeDomain,
  type FakeFault,
  type FakeHost,
  type FakeHostCondition,
  FakeLibvirt,
  type FakeLibvirtOptions,
  type FakePool,
  type FakeVolume,
  libvirtError,
} from './fake-libvirt.js';
export { otherFlavour, testFlavour } from './flavour.js';
export {
  FAKE_HOSTS,
  fakeControl,
  KVM_STATE_TABLE,
  type KvmHarnessOptions,
  kvmConformanceHarness,
  memoryImage,
} from './harness.js';
export {
  describeRealBackend,
  type RealBackendSuiteOptions,
  type RealFlavourFacts,
} from './real-backend-suite.js';
export { describeRealFaults } from './real-faults-suite.js';
export {
  failure,
  type HookedDialer,
  hookedDialer,
  type RequestMaker,
  requestMaker,
} from './real-fixtures.js';
export {
  createTestBridge,
  domainMetadata,
  domainNames,
  type ImageServer,
  makeQcow2,
  poolVolumes,
  prepareRealHost,
  type RealHostEnv,
  type RealHostSetup,
  realHostConfig,
  removeDomains,
  startImageServer,
} from './real-helpers.js';
export { describeRealSharedHost, type RealSharedHostSuiteOptions } from './real-shared-host-suite.js';
export { type RealSuiteHost, useRealHost } from './real-suite-host.js';
export type { RealSuiteEnv, RealSuiteOptions } from './real-suite-options.js';
export type { RealTracing } from './real-tracing.js';
export { rootFileOfIso } from './seed-iso-file.js';
export { runningVitest, type SuiteVitest } from './vitest-api.js';
