import { errorDomainName, errorNumberName } from './error-numbers.js';

function marker(name: string): symbol {
  return Symbol.for(`libvirt-rpc-ts.${name}`);
}

function hasMarker(value: unknown, mark: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[mark] === true;
}

const LIBVIRT_ERROR = marker('LibvirtError');

/** The handle fields a remote_error may carry (libvirt leaves them empty in practice). */
export interface RemoteErrorDomainRef {
  name: string;
  uuid: string;
  id: number;
}
export interface RemoteErrorNetworkRef {
  name: string;
  uuid: string;
}

/** Every field of libvirt's remote_error struct. */
export interface RemoteErrorFields {
  code: number;
  domain: number;
  message: string | null;
  level: number;
  dom: RemoteErrorDomainRef | null;
  str1: string | null;
  str2: string | null;
  str3: string | null;
  int1: number;
  int2: number;
  net: RemoteErrorNetworkRef | null;
}

/** An error reported by libvirtd (REPLY/ERROR or STREAM/ERROR). */
export class LibvirtError extends Error {
  /** virErrorNumber, e.g. 42 for VIR_ERR_NO_DOMAIN (see `ErrorNumber`). */
  readonly code: number;
  /** Symbolic name of `code`, e.g. `VIR_ERR_NO_DOMAIN`. */
  readonly codeName: string;
  /** virErrorDomain (where the error came from), e.g. 10 for VIR_FROM_QEMU. */
  readonly domain: number;
  readonly domainName: string;
  /** 0 NONE, 1 WARNING, 2 ERROR. */
  readonly level: number;
  readonly dom: RemoteErrorDomainRef | null;
  readonly str1: string | null;
  readonly str2: string | null;
  readonly str3: string | null;
  readonly int1: number;
  readonly int2: number;
  readonly net: RemoteErrorNetworkRef | null;
  /** The server's message as sent (may be null); `message` always has text. */
  readonly serverMessage: string | null;
  /** The procedure whose call failed, e.g. `DOMAIN_LOOKUP_BY_NAME`. */
  readonly procedure: string | undefined;
  constructor(fields: RemoteErrorFields, procedure?: string) {
    const codeName = errorNumberName(fields.code);
    super(fields.message ?? `${codeName} (code ${fields.code})`);
    this.name = 'LibvirtError';
    this.code = fields.code;
    this.codeName = codeName;
    this.domain = fields.domain;
    this.domainName = errorDomainName(fields.domain);
    this.level = fields.level;
    this.dom = fields.dom;
    this.str1 = fields.str1;
    this.str2 = fields.str2;
    this.str3 = fields.str3;
    this.int1 = fields.int1;
    this.int2 = fields.int2;
    this.net = fields.net;
    this.serverMessage = fields.message;
    this.procedure = procedure;
    Object.defineProperty(this, LIBVIRT_ERROR, { value: true });
  }

  static isInstance(value: unknown): value is LibvirtError {
    return hasMarker(value, LIBVIRT_ERROR);
  }
}

/** Base of this package's own errors: a stable string `code` and a cross-realm marker. */
export abstract class LibvirtRpcError extends Error {
  abstract readonly code: string;
  constructor(name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
    Object.defineProperty(this, marker(name), { value: true });
  }
}

/** The connection is gone: closed, cut, dropped by the peer, or marked dead because a call
 * was abandoned (the protocol cannot cancel a call). Every in-flight call fails with it. */
export class ConnectionClosedError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_CONNECTION_CLOSED' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('ConnectionClosedError', message, options);
  }
  static isInstance(value: unknown): value is ConnectionClosedError {
    return hasMarker(value, marker('ConnectionClosedError'));
  }
}

/** A call exceeded its `timeoutMs`. The connection is dead afterwards. */
export class CallTimeoutError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_CALL_TIMEOUT' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('CallTimeoutError', message, options);
  }
  static isInstance(value: unknown): value is CallTimeoutError {
    return hasMarker(value, marker('CallTimeoutError'));
  }
}

/** The peer broke the wire protocol (oversized packet, unexpected serial, undecodable reply). */
export class ProtocolError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_PROTOCOL_ERROR' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('ProtocolError', message, options);
  }
  static isInstance(value: unknown): value is ProtocolError {
    return hasMarker(value, marker('ProtocolError'));
  }
}

/** A value cannot be XDR-encoded or a buffer cannot be decoded (bad type, too long, truncated). */
export class XdrError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_XDR_ERROR' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('XdrError', message, options);
  }
  static isInstance(value: unknown): value is XdrError {
    return hasMarker(value, marker('XdrError'));
  }
}

/** A caller-supplied argument is invalid (the message names the value). */
export class InvalidArgumentError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_INVALID_ARGUMENT' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('InvalidArgumentError', message, options);
  }
  static isInstance(value: unknown): value is InvalidArgumentError {
    return hasMarker(value, marker('InvalidArgumentError'));
  }
}

/** The daemon offered only authentication methods this client does not implement (SASL). */
export class UnsupportedAuthError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_UNSUPPORTED_AUTH' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('UnsupportedAuthError', message, options);
  }
  static isInstance(value: unknown): value is UnsupportedAuthError {
    return hasMarker(value, marker('UnsupportedAuthError'));
  }
}

/** Could not reach the daemon (socket missing, connection refused, connect timeout). */
export class TransportError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_TRANSPORT_ERROR' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('TransportError', message, options);
  }
  static isInstance(value: unknown): value is TransportError {
    return hasMarker(value, marker('TransportError'));
  }
}

/** The SSH host has no entry in the known_hosts file. */
export class SshUnknownHostKeyError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_UNKNOWN_HOST_KEY' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshUnknownHostKeyError', message, options);
  }
  static isInstance(value: unknown): value is SshUnknownHostKeyError {
    return hasMarker(value, marker('SshUnknownHostKeyError'));
  }
}

/** The SSH host is in the known_hosts file but presented a different (or revoked) key. */
export class SshHostKeyMismatchError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_HOST_KEY_MISMATCH' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshHostKeyMismatchError', message, options);
  }
  static isInstance(value: unknown): value is SshHostKeyMismatchError {
    return hasMarker(value, marker('SshHostKeyMismatchError'));
  }
}

/** The SSH server refused the user key (or the key could not be loaded). */
export class SshAuthenticationError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_AUTH_FAILED' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshAuthenticationError', message, options);
  }
  static isInstance(value: unknown): value is SshAuthenticationError {
    return hasMarker(value, marker('SshAuthenticationError'));
  }
}

/** sshd refused the direct-streamlocal channel (AllowStreamLocalForwarding / AllowTcpForwarding). */
export class SshForwardingRefusedError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_FORWARDING_REFUSED' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshForwardingRefusedError', message, options);
  }
  static isInstance(value: unknown): value is SshForwardingRefusedError {
    return hasMarker(value, marker('SshForwardingRefusedError'));
  }
}

/** The libvirt socket does not exist on the SSH host. */
export class SshSocketNotFoundError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_SOCKET_NOT_FOUND' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshSocketNotFoundError', message, options);
  }
  static isInstance(value: unknown): value is SshSocketNotFoundError {
    return hasMarker(value, marker('SshSocketNotFoundError'));
  }
}

/** `connectSsh` was used but the optional peer dependency `ssh2` is not installed. */
export class SshUnavailableError extends LibvirtRpcError {
  readonly code = 'LIBVIRT_SSH_UNAVAILABLE' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('SshUnavailableError', message, options);
  }
  static isInstance(value: unknown): value is SshUnavailableError {
    return hasMarker(value, marker('SshUnavailableError'));
  }
}
