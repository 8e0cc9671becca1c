/**
 * The ownership marks written on every instance, by name. Where the Go operator that this
 * project succeeds already used a name on a backend, the same name is kept so a backend it
 * managed can be taken over (docs/marks.md lists every mark per backend).
 */

/** The managed flag: a label or tag whose presence (with this value) says "ours". */
export const MANAGED_LABEL = 'proxy-operator-managed';
export const MANAGED_VALUE = 'true';
/** The owning Proxy's UID. */
export const UID_LABEL = 'proxy-operator-uid';
/** The installation id (for example the kube-system namespace UID of the cluster running the operator). */
export const INSTALLATION_LABEL = 'proxy-operator-installation';
/** The creation time, RFC 3339, where the backend has no timestamp of its own. */
export const CREATED_AT_LABEL = 'proxy-operator-created-at';

/** Every instance name starts with this prefix (see `instanceName`). */
export const INSTANCE_NAME_PREFIX = 'proxy-';

/** Proxmox: the VM tag, and the `key=value` lines in the VM description. */
export const PROXMOX_TAG = 'proxy_operator';
export const PROXMOX_DESCRIPTION_KEYS = {
  managed: MANAGED_LABEL,
  uid: UID_LABEL,
  createdAt: CREATED_AT_LABEL,
  installation: INSTALLATION_LABEL,
} as const;

/**
 * kvm2: the libvirt `<metadata>` element `<instance managed uid createdAt installation>` in this
 * namespace, the same URI as the Go kvm2 provider so its domains are recognised.
 */
export const KVM2_METADATA_NAMESPACE =
  'https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm2';
export const KVM2_METADATA_PREFIX = 'kvm2';
/** kvm: its own namespace, so a kvm and a kvm2 entry can share a host without seeing each other's domains. */
export const KVM_METADATA_NAMESPACE = 'https://egress-proxies.dev/xmlns/kvm/v1';
export const KVM_METADATA_PREFIX = 'eproxy';
export const METADATA_ELEMENT = 'instance';

/** The attributes of the kvm and kvm2 `<instance>` metadata element. */
export const METADATA_ATTRIBUTES = {
  managed: 'managed',
  uid: 'uid',
  createdAt: 'createdAt',
  installation: 'installation',
} as const;

/**
 * local: one JSON state file per instance, `<stateDir>/<LOCAL_INSTANCES_DIR>/<name>.json`; the
 * file is the mark. `kind` tells it apart from anything else a user keeps in the directory.
 */
export const LOCAL_INSTANCES_DIR = 'instances';
export const LOCAL_STATE_FILE_SUFFIX = '.json';
export const LOCAL_STATE_KIND = 'egress-proxies.local-instance/v1';
export const LOCAL_STATE_FIELDS = {
  kind: 'kind',
  managed: 'managed',
  uid: 'uid',
  createdAt: 'createdAt',
  installation: 'installation',
} as const;
