import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness, REFERENCE_ROOMY_EGRESS_PLAN } from '../src/reference/index.js';

// The whole kit over a reference with a plan: allocating egress keeps every other rule. The
// plan has room for the cases that create a dozen instances, so the cases that fill a plan skip
// here (reference-planned.conformance.test.ts runs them). Not in the mutation suite: the
// planned-egress cases there cover the allocation code.
describeProviderConformance(createReferenceHarness({ egressPlan: REFERENCE_ROOMY_EGRESS_PLAN }), {
  title: 'provider conformance (the whole kit, roomy egress plan)',
});
