import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness, REFERENCE_IPV4_EGRESS_PLAN } from '../src/reference/index.js';

// A plan of one family: every planned mark holds an IPv4 address and no IPv6 one, so a provider
// that records or reports the egress only when it has both families fails here.
describeProviderConformance(createReferenceHarness({ egressPlan: REFERENCE_IPV4_EGRESS_PLAN }), {
  only: ['CREATE-24', 'GET-18'],
  title: 'provider conformance (planned egress, IPv4 only)',
});
