import type { ConformanceHarness } from '@egress-proxies/conformance';
import { kvmConformanceHarness } from '@egress-proxies/kvm-common/test';
import { kvmFlavour } from '../flavour.js';
import { createKvmProvider } from '../provider.js';

export { FakeLibvirt, fakeControl, memoryImage } from '@egress-proxies/kvm-common/test';

/** The conformance harness: kvm over the shared in-memory libvirt. */
export function kvmProviderConformanceHarness(providerName = 'kvm-conformance'): ConformanceHarness {
  return kvmConformanceHarness({
    flavour: kvmFlavour,
    providerName,
    makeProvider: (config, options) => createKvmProvider(config, options),
  });
}
