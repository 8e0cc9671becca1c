import { InstanceState, type ProviderProfile } from '@egress-proxies/contract';

/** The reference provider's answers on every axis; `listPartial` and `egress` follow its config. */
export function referenceProfile(
  listPartial: 'fail-whole' | 'omit-unreachable',
  planned = false,
): ProviderProfile {
  return {
    readiness: 'provisioning-window',
    createReturn: 'blocking',
    deleteReturn: 'waits',
    ipSource: 'discovered',
    gcMark: 'written-metadata',
    createdAt: 'written-at-create',
    listPartial,
    listSkipsUnreadable: true,
    quota: 'detected',
    notFound: 'error-code',
    primaryKey: 'name-is-key',
    provisioningState: 'create-blocks',
    asyncOps: 'none',
    secondaryResources: 'explicit-listable',
    credentials: 'environment',
    clientKind: 'in-memory',
    timeouts: 'ctx-only',
    logging: 'tiered',
    childSpans: 'span-decorator',
    backendTest: 'in-memory-fake',
    egress: planned ? 'planned' : 'shared',
    states: [InstanceState.Provisioning, InstanceState.Running, InstanceState.Stopped],
    notes: {
      readiness: 'a started domain stays in nostate for one state read, then runs with an address',
      createReturn: 'waits through define and start, then polls the state until running',
      quota: 'a pool-space precheck before any volume is created, and NO_SPACE from the backend',
      secondaryResources: 'an overlay volume and a seed volume per instance, labelled with the instance name',
      credentials: 'a token passed in the config as a Secret and sent on every backend call',
      childSpans: 'one reference.<step> span per backend call',
      egress: planned
        ? 'one address per family from the configured plan, in the seed network-config and the mark'
        : "DHCP on the host's bridge: every instance leaves through the host",
    },
  };
}
