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
          ...config,
          token: typeof config.token === 'string' ? config.token : config.token.reveal(),
          pollIntervalMs: config.pollIntervalMs ?? 50,
          startTimeoutMs: config.startTimeoutMs ?? 15_000,
          hosts: config.hosts.map((h) => ({ name: h.name, ...(h.address ? { address: h.address } : {}) })),
        },
        { name, backend },
      );
      return { provider, checker: provider };
    },
  }),
);
