import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness } from '../src/reference/index.js';

// The whole kit over the reference provider: the worked example, and the proof the kit can pass.
describeProviderConformance(createReferenceHarness());
