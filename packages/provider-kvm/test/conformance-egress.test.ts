import { describeProviderConformance } from '@egress-proxies/conformance';
import { KVM_EGRESS_CASES, kvmEgressConformanceHarness } from '@egress-proxies/kvm-common/test';
import { kvmFlavour } from '../src/flavour.js';
import { createKvmProvider } from '../src/provider.js';

// The kit's planned-egress cases over the in-memory libvirt (the harness is kvm-common's).
describeProviderConformance(kvmEgressConformanceHarness(kvmFlavour, createKvmProvider), KVM_EGRESS_CASES);
