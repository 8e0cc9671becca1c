export { loadProxyUsers, ProxyUsers } from './basic-auth.js';
export { GatewayMetrics } from './gateway-metrics.js';
export {
  BAN_REPORT_HEADER,
  GatewayConfigError,
  type GatewayOptions,
  type GatewaySettings,
  MEMBER_HEADER,
  MOVED_HEADER,
  ROTATES,
  type Rotate,
  type RunningGateway,
  startGateway,
} from './gateway-server.js';
export type { GatewayLimits } from './limits.js';
export {
  type CooldownChange,
  type CooldownListener,
  type CooldownMark,
  type CooldownOrigin,
  type GatewayMember,
  MemberTable,
  SELECTIONS,
  type Selection,
} from './member-table.js';
export type { Outcome as GatewayOutcome } from './outcomes.js';
export { SESSION_HEADER } from './session.js';
export { SessionTable, sessionHash } from './session-table.js';
