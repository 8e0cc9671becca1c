export {
  type BootVmOptions,
  bootVm,
  type GuestForward,
  type RunningVm,
  type WaitForAgentOptions,
} from './boot-vm.js';
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
export { cacheRoot, proxyImageDir, proxyImageKey } from './image-key.js';
export { ensureHostPackages, missingHostPackages } from './prerequisites.js';
export { GUEST_FORWARD_ADDRESS, type QemuSpec, qemuArgs } from './qemu-args.js';
export { findProxyImageTools } from './tools-dir.js';
