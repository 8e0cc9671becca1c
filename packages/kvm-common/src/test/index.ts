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
  createTestBridge,
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
