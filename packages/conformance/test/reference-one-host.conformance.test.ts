import { describeProviderConformance } from '../src/index.js';
import { createReferenceHarness } from '../src/reference/index.js';

// A one-host config: the host is every zone-less request's zone, so zone is not a required field.
describeProviderConformance(createReferenceHarness({ hosts: ['solo'] }), {
  only: ['CREATE-04', 'CREATE-21', 'CREATE-22'],
  title: 'provider conformance (one configured host)',
});
