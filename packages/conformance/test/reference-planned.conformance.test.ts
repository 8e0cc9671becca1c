import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness, REFERENCE_EGRESS_PLAN } from '../src/reference/index.js';

// The reference with a small egress plan: the planned-egress cases fill it. (The rest of the
// kit over a planned reference is in reference-planned-kit.test.ts, with a roomier plan.)
describeProviderConformance(createReferenceHarness({ egressPlan: REFERENCE_EGRESS_PLAN }), {
  only: ['CREATE-24', 'CREATE-25', 'CREATE-26', 'CREATE-27', 'CREATE-28', 'CREATE-29', 'GET-18', 'OPS-21'],
  title: 'provider conformance (planned egress)',
});
