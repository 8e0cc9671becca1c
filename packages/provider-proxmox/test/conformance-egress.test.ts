import { readFileSync } from 'node:fs';
import { type ConformanceFixture, describeProviderConformance } from '@egress-proxies/conformance';
import { fakeControl, mintFakeTls, startFakeSetup } from '../src/test/index.js';
import { seedNetworkConfig } from './seed-network-config.js';

// The kit's planned-egress cases over the fake PVE with a plan on the bridge: a /29 that holds
// four instances once the gateway and one exclusion are out, and a /64.
const NODES = ['pve1', 'pve2'];
const PLAN = {
  ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' },
  ipv6: { prefix: '2001:db8:1::/64', gateway: '2001:db8:1::1' },
  nameservers: ['192.0.2.53'],
  exclude: ['203.0.113.10'],
};
const BUDGETS = {
  pollMs: 5,
  taskMs: 3_000,
  cloneMs: 3_000,
  runningMs: 3_000,
  lockWaitMs: 2_000,
  checkMs: 3_000,
};

const tls = mintFakeTls();
describeProviderConformance(
  async (): Promise<ConformanceFixture> => {
    const setup = await startFakeSetup({ nodes: NODES, tls });
    const token = readFileSync(setup.tokenFile, 'utf8').trim();
    const make = () =>
      setup.provider(
        { egressPlans: { lab: PLAN }, egressPlan: 'lab' },
        { name: 'proxmox-egress', budgets: BUDGETS },
      );
    const provider = make();
    const control = fakeControl(setup.fake);
    return {
      provider,
      freshProvider: make,
      backend: {
        ...control,
        steps: { ...control.steps, define: 'cloneVm' },
        deliveredNetwork(name, zone) {
          const vm = [...setup.fake.vms.values()].find(
            (v) => v.config.name === name && (!zone || v.node === zone),
          );
          const node = vm?.node ?? zone ?? NODES[0]!;
          const net0 = typeof vm?.config.net0 === 'string' ? vm.config.net0 : '';
          const mac = /=([0-9A-Fa-f:]{17})/.exec(net0)?.[1];
          const networkConfig = seedNetworkConfig(setup.fake, node, name);
          return { ...(networkConfig ? { networkConfig } : {}), macs: mac ? [mac] : [] };
        },
      },
      profile: provider.profile,
      config: {
        providerName: 'proxmox-egress',
        placement: { zone: NODES[0], machineType: 'small', image: 'debian' },
        validatedPlacement: ['zone', 'machineType', 'image'],
        requiredPlacement: ['zone'],
        zones: NODES,
        secrets: [token.slice(token.lastIndexOf('=') + 1)],
        stateTable: [],
        egress: { planName: 'lab', plan: PLAN },
      },
      dispose: async () => {
        await provider.close?.();
        await setup.close();
      },
    };
  },
  {
    only: ['CREATE-24', 'CREATE-25', 'CREATE-26', 'CREATE-27', 'CREATE-28', 'CREATE-29', 'GET-18', 'OPS-21'],
    title: 'provider conformance (planned egress)',
  },
);
