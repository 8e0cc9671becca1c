import { describeProviderConformance } from '@egress-proxies/conformance';
import { gcpConformanceHarness } from '../src/test/conformance-harness.js';

describeProviderConformance(gcpConformanceHarness);
