import { describeProviderConformance } from '@egress-proxies/conformance';
import { createLocalHarness } from '../src/test/index.js';

// Real processes on this host (the Node engine, which starts fastest), one fresh state
// directory per case; the ports come from a range no other test file of this package uses.
describeProviderConformance(createLocalHarness({ portRange: { min: 23200, max: 23239 } }));
