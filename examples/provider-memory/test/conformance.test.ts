import { describeProviderConformance } from '@egress-proxies/conformance';
import { createReferenceHarness } from '@egress-proxies/conformance/reference';
import { createMemoryProvider } from '../src/index.js';

// The kit's reference harness supplies the in-memory backend and its fault controls; the
// provider under test is this package's, built from the same config the operator would pass.
describeProviderConformance(
  createReferenceHarness({
    providerName: 'memory-conformance',
    makeProvider: ({ name, config, backend }) => {
      const provider = createMemoryProvider(
        {
          hosts: config.hosts.map((h) => ({ name: h.name, ...(h.address ? { address: h.address } : {}) })),
          machineTypes: config.machineTypes,
          images: config.images,
          token: typeof config.token === 'string' ? config.token : config.token.reveal(),
          ...(config.pollIntervalMs !== undefined ? { pollIntervalMs: config.pollIntervalMs } : {}),
          ...(config.startTimeoutMs !== undefined ? { startTimeoutMs: config.startTimeoutMs } : {}),
        },
        { name, backend },
      );
      return { provider, checker: provider };
    },
  }),
);
