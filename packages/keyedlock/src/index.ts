export { InvalidArgumentError } from './errors.js';
export { KeyedLock } from './keyed-lock.js';
export type { Release } from './lock-node.js';
export type { LockOptions } from './options.js';
