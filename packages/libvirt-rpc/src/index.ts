export type {
  DomainInfo,
  DomainInterface,
  DomainIPAddress,
  DomainStateResult,
  StoragePoolInfo,
  StorageVolInfo,
  StreamRange,
} from './client.js';
export { LibvirtClient } from './client.js';
export * from './codes.js';
export type {
  CallEvent,
  CallOptions,
  ConnectionOptions,
  KeepaliveOptions,
  ServerMessage,
  StreamSink,
} from './connection.js';
export { RpcConnection } from './connection.js';
export { PacketFramer } from './framer.js';
export * from './header.js';
export type { HostKeyVerdict, KnownHostEntry } from './known-hosts.js';
export {
  checkHostKey,
  fingerprint,
  hostFieldMatches,
  knownHostsName,
  parseKnownHosts,
} from './known-hosts.js';
export type { OpenOptions } from './open.js';
export { openLibvirt } from './open.js';
export type { ProcedureName } from './procedures.js';
export { Procedure, procedureName } from './procedures.js';
export * from './remote-types.js';
export type { DownloadOptions, UploadOptions, UploadSource } from './streams.js';
export type { ConnectOptions } from './transport-net.js';
export { connectTcp, connectUnix, DEFAULT_SOCKET_PATH } from './transport-net.js';
export type { HostKeyInfo, SshHandshakeInfo, SshOptions } from './transport-ssh.js';
export { connectSsh, SSH_CIPHERS } from './transport-ssh.js';
export { uuidToBytes, uuidToString } from './uuid.js';
export { XdrReader, XdrWriter } from './xdr.js';
