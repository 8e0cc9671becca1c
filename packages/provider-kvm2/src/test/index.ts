import type { ConformanceHarness } from '@egress-proxies/conformance';
import { kvmConformanceHarness } from '@egress-proxies/kvm-common/test';
import { kvm2Flavour } from '../flavour.js';
import { createKvm2Provider } from '../provider.js';

export { FakeLibvirt, fakeControl, memoryImage } from '@egress-proxies/kvm-common/test';

/** The conformance harness: kvm2 over the shared in-memory libvirt. */
export function kvm2ConformanceHarness(providerName = 'kvm2-conformance'): ConformanceHarness {
  return kvmConformanceHarness({
    flavour: kvm2Flavour,
    providerName,
    makeProvider: (config, options) => createKvm2Provider(config, options),
  });
}
