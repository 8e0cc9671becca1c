/** Program number of the main libvirt remote protocol. */
export const REMOTE_PROGRAM = 0x20008086;
export const REMOTE_PROTOCOL_VERSION = 1;
/** Program number of the keepalive protocol (ASCII "keep"). */
export const KEEPALIVE_PROGRAM = 0x6b656570;
export const KEEPALIVE_PROTOCOL_VERSION = 1;
export const KEEPALIVE_PROC_PING = 1;
export const KEEPALIVE_PROC_PONG = 2;

/** virNetMessageType */
export const MessageType = {
  CALL: 0,
  REPLY: 1,
  MESSAGE: 2,
  STREAM: 3,
  CALL_WITH_FDS: 4,
  REPLY_WITH_FDS: 5,
  STREAM_HOLE: 6,
} as const;

/** virNetMessageStatus */
export const MessageStatus = {
  OK: 0,
  ERROR: 1,
  CONTINUE: 2,
} as const;

/** Size of the length word that starts every packet. */
export const PACKET_LENGTH_SIZE = 4;
/** Size of the header that follows the length word. */
export const PACKET_HEADER_SIZE = 24;
/** Length word + header: the size of a packet with an empty payload. */
export const PACKET_PREFIX_SIZE = PACKET_LENGTH_SIZE + PACKET_HEADER_SIZE;
/** Largest header + payload the 9.x daemon accepts (the length word itself excluded). */
export const MESSAGE_MAX = 33554432;
/** Largest payload of one packet. */
export const MESSAGE_PAYLOAD_MAX = MESSAGE_MAX - PACKET_HEADER_SIZE;
/** Stream chunk size every daemon version accepts. */
export const LEGACY_PAYLOAD_MAX = 262120;
/** Longest string libvirt accepts. */
export const STRING_MAX = 4194304;
export const UUID_BUFLEN = 16;

/** remote_auth_type */
export const AuthType = {
  NONE: 0,
  SASL: 1,
  POLKIT: 2,
} as const;

/** virDrvFeature values used with connectSupportsFeature. */
export const DrvFeature = {
  MIGRATION_V1: 1,
  REMOTE: 2,
  MIGRATION_V2: 3,
  MIGRATION_P2P: 4,
  MIGRATION_DIRECT: 5,
  MIGRATION_V3: 6,
  MIGRATE_CHANGE_PROTECTION: 7,
  FD_PASSING: 8,
  TYPED_PARAM_STRING: 9,
  PROGRAM_KEEPALIVE: 10,
  REMOTE_EVENT_CALLBACK: 11,
  REMOTE_CLOSE_CALLBACK: 12,
} as const;

/** Array maxima from remote_protocol.x. */
export const REMOTE_AUTH_TYPE_LIST_MAX = 20;
export const REMOTE_DOMAIN_LIST_MAX = 16384;
export const REMOTE_STORAGE_POOL_LIST_MAX = 4096;
export const REMOTE_STORAGE_VOL_LIST_MAX = 16384;
export const REMOTE_DOMAIN_INTERFACE_MAX = 2048;
export const REMOTE_DOMAIN_IP_ADDR_MAX = 2048;
