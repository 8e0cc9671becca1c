import { describeProviderConformance } from '@egress-proxies/conformance';
import { KVM_EGRESS_CASES, kvmEgressConformanceHarness } from '@egress-proxies/kvm-common/test';
import { kvm2Flavour } from '../src/flavour.js';
import { createKvm2Provider } from '../src/provider.js';

// The kit's planned-egress cases over the in-memory libvirt (the harness is kvm-common's).
describeProviderConformance(kvmEgressConformanceHarness(kvm2Flavour, createKvm2Provider), KVM_EGRESS_CASES);
