import { describeProviderConformance } from '@egress-proxies/conformance';
import { gcpConformanceHarness } from './conformance-harness.js';

describeProviderConformance(gcpConformanceHarness);
