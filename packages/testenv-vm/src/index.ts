export {
  acquireBootSlot,
  BOOT_SLOTS_ENV,
  type BootSlot,
  type BootSlotOptions,
  bootSlotCount,
} from './boot-slot.js';
export {
  type BootVmOptions,
  bootVm,
  type GuestForward,
  type RunningVm,
  type WaitForAgentOptions,
} from './boot-vm.js';
export { CLOUD_INIT_STAGES, type CloudInitProgress, parseCloudInitStatus } from './cloud-init-status.js';
export {
  type DhcpLease,
  type Dnsmasq,
  parseLeases,
  type StartDnsmasqOptions,
  startDnsmasq,
} from './dnsmasq.js';
export { type EnsureProxyImageOptions, ensureProxyImage, type ProxyImage } from './ensure-image.js';
export { TestEnvVmError, type TestEnvVmErrorCode } from './errors.js';
export { findUefiFirmware, type UefiFirmware } from './firmware.js';
export {
  type AgentCallOptions,
  createGuestAgent,
  type GuestAgent,
  type GuestExecOptions,
  type GuestExecResult,
  type GuestIpAddress,
  type GuestNetworkInterface,
} from './guest-agent.js';
export { type AgentCall, guestExecVia } from './guest-exec.js';
export type { GuestWaitOptions } from './guest-waits.js';
export { cacheRoot, proxyImageDir, proxyImageKey } from './image-key.js';
export { libvirtAgentCall } from './libvirt-agent.js';
export {
  createNetns,
  deleteNetns,
  inNetns,
  listNetns,
  netnsPids,
  ownedNetnsName,
  removeStaleNetns,
} from './netns.js';
export {
  type NetnsHypervisor,
  type StartNetnsHypervisorOptions,
  startNetnsHypervisor,
} from './netns-hypervisor.js';
export { ensureHostPackages, missingHostPackages } from './prerequisites.js';
export {
  type PrivateLibvirtd,
  type StartPrivateLibvirtdOptions,
  startPrivateLibvirtd,
} from './private-libvirtd.js';
export { type ProgressWaitOptions, waitWithProgress } from './progress-wait.js';
export { GUEST_FORWARD_ADDRESS, type QemuSpec, qemuArgs } from './qemu-args.js';
export {
  echoCallersIn,
  type RoutedUpstream,
  type StartRoutedUpstreamOptions,
  startRoutedUpstream,
  UPSTREAM,
} from './routed-upstream.js';
export { findProxyImageTools } from './tools-dir.js';
