import { describeProviderConformance } from '@egress-proxies/conformance';
import { kvmProviderConformanceHarness } from '../src/test/index.js';

describeProviderConformance(kvmProviderConformanceHarness());
