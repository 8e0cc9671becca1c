export {
  fakeControl,
  PROXMOX_CONFORMANCE_EXCLUDES,
  PROXMOX_STATE_TABLE,
  proxmoxConformanceHarness,
} from './conformance-harness.js';
export { type FakeFaultKind, FakePve, type FakePveOptions, stepOf } from './fake-pve.js';
export type {
  FakeAgent,
  FakeAgentInterface,
  FakeCall,
  FakeFault,
  FakeStorage,
  FakeTask,
  FakeVm,
  FakeVolume,
} from './fake-state.js';
export { type FakeSetup, startFakeSetup } from './setup.js';
export { type FakeTls, mintFakeTls } from './tls.js';
