import { describeProviderConformance } from '@egress-proxies/conformance';
import { kvmConformanceHarness } from '@egress-proxies/kvm-common/test';
import { kvmFlavour } from '../src/flavour.js';
import { createKvmProvider } from '../src/provider.js';

// The kit's planned-egress cases over the in-memory libvirt, the first host (every case's
// placement) on a plan: a /29 that holds four instances once the gateway and one exclusion are
// out, and a /64. CREATE-29 reads the network-config out of the seed image the fake stored.
const PLAN = {
  ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
  ipv6: { prefix: '2001:db8:e::/64', gateway: '2001:db8:e::1' },
  nameservers: ['192.0.2.53'],
  exclude: ['203.0.113.10'],
};

describeProviderConformance(
  async (info) => {
    let again: (() => ReturnType<typeof createKvmProvider>) | undefined;
    const base = kvmConformanceHarness({
      flavour: kvmFlavour,
      makeProvider: (config, options) => {
        const planned = {
          ...config,
          egressPlans: { doc: PLAN },
          // A plan's block is routed to one host: the placement's.
          hosts: config.hosts.map((h, i) => (i === 0 ? { ...h, egressPlan: 'doc' } : h)),
        };
        again = () => createKvmProvider(planned, options);
        return again();
      },
    });
    const f = await base(info);
    return {
      ...f,
      freshProvider: () => again!(),
      backend: { ...f.backend, steps: { ...f.backend.steps, define: 'domainDefineXML' } },
      config: { ...f.config, egress: { planName: 'doc', plan: PLAN } },
    };
  },
  {
    only: ['CREATE-24', 'CREATE-25', 'CREATE-26', 'CREATE-27', 'CREATE-28', 'CREATE-29', 'GET-18', 'OPS-21'],
    title: 'provider conformance (planned egress)',
  },
);
