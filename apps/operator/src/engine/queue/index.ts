export { type Clock, FakeClock, systemClock } from './clock.js';
export {
  type BackoffPolicy,
  type BackoffTier,
  DEFAULT_TIERS,
  RateLimiter,
  type RateLimiterOptions,
} from './rate-limiter.js';
export { WorkQueue, type WorkQueueOptions } from './work-queue.js';
