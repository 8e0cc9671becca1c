import { InstanceState, type ProviderProfile } from '@egress-proxies/contract';

/**
 * The profile both kvm types share: the same machinery gives the same answers. Each provider
 * adds its own notes (span names, address order).
 */
export function kvmFamilyProfile(notes: ProviderProfile['notes'] = {}): ProviderProfile {
  return {
    readiness: 'provisioning-window',
    createReturn: 'blocking',
    deleteReturn: 'waits',
    ipSource: 'discovered',
    gcMark: 'written-metadata',
    createdAt: 'written-at-create',
    listPartial: 'fail-whole',
    listSkipsUnreadable: true,
    quota: 'detected',
    notFound: 'error-code',
    primaryKey: 'name-is-key',
    provisioningState: 'create-blocks',
    asyncOps: 'none',
    secondaryResources: 'explicit-listable',
    credentials: 'mounted-files',
    clientKind: 'rpc-over-ssh',
    timeouts: 'per-call',
    logging: 'tiered',
    childSpans: 'span-decorator',
    backendTest: 'real-backend-in-ci',
    states: [InstanceState.Provisioning, InstanceState.Running, InstanceState.Stopped],
    // The static profile describes an entry without plans; a provider built from a config whose
    // hosts name an egress plan reports `planned` in its own `profile`.
    egress: 'shared',
    notes: {
      egress:
        "shared (DHCP on the bridge, the host network's egress) unless a host names an egress plan; then planned: one address per family from the plan, in the seed's network-config and the mark",
      readiness: 'boot plus, on first use of an image on a host, its download into the pool',
      createReturn:
        'waits through DomainCreate and a 15 s poll for running; the first image fetch runs inside',
      listPartial:
        'a host that cannot be listed fails the call; a domain whose mark cannot be read is skipped',
      quota: 'pool-space precheck: image (if not cached) + diskSizeGb + 16 MiB',
      notFound: 'VIR_ERR_NO_DOMAIN / VIR_ERR_NO_STORAGE_VOL; Transient inside create',
      secondaryResources:
        'overlay and seed removed by name; listSecondary finds proxy-* volumes without a domain',
      credentials: 'SSH key and known_hosts files, read on every dial',
      timeouts: 'dial 10 s, RPC 30 s, DomainCreate 90 s, upload 20 min',
      backendTest: 'a real libvirtd reached through a real sshd in CI',
      ...notes,
    },
  };
}
