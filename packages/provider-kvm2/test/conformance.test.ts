import { describeProviderConformance } from '@egress-proxies/conformance';
import { kvm2ConformanceHarness } from '../src/test/index.js';

describeProviderConformance(kvm2ConformanceHarness());
