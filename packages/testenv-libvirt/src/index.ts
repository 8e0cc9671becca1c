export { sleep } from './abort.js';
export { type EnsureLibvirtdResult, ensureLibvirtd, libvirtdPid, restartLibvirtd } from './daemons.js';
export { type DelayRelay, type DelayRelayOptions, delayRelay } from './delay-relay.js';
export { TestEnvError, type TestEnvErrorCode } from './errors.js';
export { type RunOptions, type RunResult, run, runChecked } from './exec.js';
export { acquireFileLock, type HeldLock, type LockOptions, withFileLock } from './file-lock.js';
export { freePort } from './free-port.js';
export { fixKvmDevicePermissions, KVM_DEVICE } from './kvm-device.js';
export { ensurePackages, missingPackages, REQUIRED_PACKAGES } from './packages.js';
export { LIBVIRT_SOCKET } from './paths.js';
export { type CreatePoolOptions, cleanupStalePools, createPool, POOL_PREFIX, type TestPool } from './pool.js';
export { isAlive, terminate } from './processes.js';
export {
  REMOTE_ENV_VARS,
  type RemoteHostSettings,
  type RemoteLibvirtTestEnv,
  remoteHostFromEnv,
  startRealSuiteEnv,
  startRemoteLibvirtTestEnv,
} from './remote-env.js';
export { libvirtdAnswers } from './socket-probe.js';
export { generateKeyPair, type KeyPair, knownHostsPattern } from './ssh-keys.js';
export { type SshEndpoint, type StartSshdOptions, startSshd, type TcpForwarding } from './sshd.js';
export { type LibvirtTestEnv, startLibvirtTestEnv } from './testenv.js';
export { SYSTEM_URI, virsh } from './virsh.js';
