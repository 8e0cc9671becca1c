import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness } from '../src/reference/index.js';

// The reference provider's other list-partial policy, for the cases that policy decides.
describeProviderConformance(createReferenceHarness({ listPartial: 'omit-unreachable' }), {
  only: ['LIST-04', 'LIST-08'],
  title: 'provider conformance (listPartial: omit-unreachable)',
});
