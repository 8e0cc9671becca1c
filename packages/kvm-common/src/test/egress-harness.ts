import type { ConformanceHarness } from '@egress-proxies/conformance';
import type { KvmConfigInput } from '../config.js';
import type { KvmFlavour } from '../flavour.js';
import type { KvmFamilyProvider, KvmProviderOptions } from '../provider.js';
import { kvmConformanceHarness } from './harness.js';

// The plan of the kit's planned-egress cases: a /29 that holds four instances once the gateway
// and one exclusion are out, and a /64.
const PLAN = {
  ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
  ipv6: { prefix: '2001:db8:e::/64', gateway: '2001:db8:e::1' },
  nameservers: ['192.0.2.53'],
  exclude: ['203.0.113.10'],
};

/** The kit's planned-egress cases, and the title they run under. */
export const KVM_EGRESS_CASES = {
  only: ['CREATE-24', 'CREATE-25', 'CREATE-26', 'CREATE-27', 'CREATE-28', 'CREATE-29', 'GET-18', 'OPS-21'],
  title: 'provider conformance (planned egress)',
};

/**
 * The conformance harness of the planned-egress cases over the in-memory libvirt: the first host
 * (every case's placement) on a plan. CREATE-29 reads the network-config out of the seed image
 * the fake stored. `makeProvider` is the flavour's own provider factory.
 */
export function kvmEgressConformanceHarness(
  flavour: KvmFlavour,
  makeProvider: (config: KvmConfigInput, options: KvmProviderOptions) => KvmFamilyProvider,
): ConformanceHarness {
  return async (info) => {
    let again: (() => KvmFamilyProvider) | undefined;
    const base = kvmConformanceHarness({
      flavour,
      makeProvider: (config, options) => {
        const planned = {
          ...config,
          egressPlans: { doc: PLAN },
          // A plan's block is routed to one host: the placement's.
          hosts: config.hosts.map((h, i) => (i === 0 ? { ...h, egressPlan: 'doc' } : h)),
        };
        again = () => makeProvider(planned, options);
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
  };
}
