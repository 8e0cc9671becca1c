export { ConditionType, getCondition, removeCondition, setCondition } from './conditions.js';
export { instanceSpecHash } from './instance-hash.js';
export { reconcileProxy } from './reconcile-proxy.js';
export type * from './types.js';
