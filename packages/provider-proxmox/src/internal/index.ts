// Everything beside the public surface: the building blocks the package's own tests, the
// conformance harness and a curious reader use. Not covered by semver: names here may move.
export { ApiError, TaskError } from '../api-error.js';
export type { Backend, ClusterResource, TaskStatus, VmConfig, VmStatus } from '../backend.js';
export { HttpBackend, type HttpBackendOptions } from '../client.js';
export {
  type MachineType,
  PROXMOX_VMID_MAX,
  PROXMOX_VMID_MIN,
  parseProxmoxConfig,
  proxmoxMachineTypeSchema,
} from '../config.js';
export type { Budgets } from '../context.js';
export { classify } from '../errors.js';
export { formatProviderId, parseProviderId } from '../id.js';
export { formatDescription, PROXMOX_DESCRIPTION_KEYS, PROXMOX_TAG, parseDescription } from '../marks.js';
export { firstIPv4, mapState } from '../state.js';
export { fnv1a32, vmidFor } from '../vmid.js';
