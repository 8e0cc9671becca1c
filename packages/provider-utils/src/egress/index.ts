export { canonicalAddress, type Family, familyOf } from './addresses.js';
export {
  buildHostEgressPlan,
  canonicalIpv6Prefix,
  describeHostPlan,
  freeHostAddress,
  type HostEgressPlan,
  type HostEgressPlanInput,
  type HostPlanIssue,
  ipv6InPrefix,
  MAX_HOST_PLAN_ADDRESSES,
  parseIpv4Entry,
} from './host-plan.js';
export { macAddressFor, networkConfigV2, PLANNED_INTERFACE } from './network-config.js';
export {
  addressAt,
  allocate,
  compileEgressPlan,
  type EgressAllocation,
  type EgressPlan,
  type EgressPlanConfig,
  type EgressPlanIPv4,
  type EgressPlanIPv6,
  enumerate,
  inPlan,
  type PlanFamily,
} from './plan.js';
export { type EgressPlanInput, type EgressPlanOutput, egressPlanSchema } from './plan-schema.js';
