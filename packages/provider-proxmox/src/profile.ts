import { InstanceState, type ProviderProfile } from '@egress-proxies/contract';

/** How this provider meets the contract, axis by axis (the README explains each). */
export const proxmoxProfile: ProviderProfile = {
  readiness: 'provisioning-window',
  createReturn: 'blocking',
  deleteReturn: 'waits',
  ipSource: 'discovered',
  gcMark: 'written-metadata',
  createdAt: 'written-at-create',
  listPartial: 'omit-unreachable',
  listSkipsUnreadable: true,
  quota: 'absent',
  notFound: 'error-code',
  primaryKey: 'allocated-id',
  provisioningState: 'create-blocks',
  asyncOps: 'task-handle-and-lock',
  secondaryResources: 'explicit-listable',
  credentials: 'mounted-files',
  clientKind: 'thin-client',
  timeouts: 'per-call',
  logging: 'tiered',
  childSpans: 'transport-wrapper',
  backendTest: 'wire-level-fake',
  egress: 'shared',
  states: [InstanceState.Provisioning, InstanceState.Running, InstanceState.Stopped],
  notes: {
    readiness: 'boot plus the guest agent install at first boot; the address comes from the agent',
    createReturn: 'waits through clone, seed upload, resize and start tasks and up to 60 s for running',
    deleteReturn: 'waits for the stop, seed delete and destroy tasks',
    ipSource: 'guest agent only: first routable IPv4 in the agent order',
    gcMark: 'key=value lines in the VM description plus the proxy_operator tag',
    listPartial:
      'one cluster-wide /cluster/resources read (its failure fails the list); guests of an unreachable node lose their name there or fail their config read, so they are left out',
    quota:
      'thin storage overprovisions: no out-of-space answer to match; free space is in the Checker details',
    notFound:
      "the 500 `Configuration file '...' does not exist`, plus list-and-miss on /cluster/resources; Transient inside Create",
    primaryKey:
      'vms/<vmid>/<name>; VMID from FNV-1a of the UID with 32 forward probes, each taken VMID ownership-checked',
    asyncOps:
      'every clone, upload, resize, start, stop, destroy and volume delete is a UPID polled to its end; locks are waited on in Create and Transient in Get/Delete',
    secondaryResources: 'the seed ISO, deleted by name; orphans are listable per node (listSecondary)',
    credentials: 'token file read on every request; CA file re-read when it changes',
    timeouts: 'dial+TLS 10 s, each request requestTimeoutSeconds, a budget per task wait',
    childSpans: 'one HTTP <METHOD> client span per request, only under a caller span',
    backendTest: 'a stateful HTTPS fake PVE (the ./test export) speaking the real wire format',
    egress: "without an egress plan, every VM leaves through its node's route (DHCP on the bridge)",
  },
};

/**
 * The profile of one configured entry: `planned` egress when any node allocates from a plan
 * (recorded in the description mark, delivered in the seed's network-config), `shared` otherwise.
 */
export function profileFor(planned: boolean): ProviderProfile {
  if (!planned) return proxmoxProfile;
  return {
    ...proxmoxProfile,
    egress: 'planned',
    notes: {
      ...proxmoxProfile.notes,
      egress:
        "one address per family from the node's egress plan, recorded in the description mark and delivered as the seed's network-config on a pinned net0 MAC",
    },
  };
}
