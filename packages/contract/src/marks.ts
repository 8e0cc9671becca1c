/**
 * The ownership marks every provider writes on its instances, by name. Where the Go operator
 * that this project succeeds already used a name on a backend, the same name is kept so a
 * backend it managed can be taken over. How each backend carries them (labels, metadata, a
 * description, state files) is the provider's own; docs/marks.md lists every mark per backend.
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
