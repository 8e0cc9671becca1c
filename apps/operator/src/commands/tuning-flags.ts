import type { LogLevelName } from '../domain/logger.js';

/**
 * The flags `run` and `up` share: what reconciles how often, and how much is logged. Both
 * default them alike (4 workers, GC every 5m with 10m grace, health every 1m, info).
 */
export const TUNING_OPTIONS = {
  workers: { type: 'string' },
  'create-concurrency': { type: 'string' },
  'create-timeout': { type: 'string' },
  'call-timeout': { type: 'string' },
  'gc-interval': { type: 'string' },
  'gc-grace': { type: 'string' },
  'health-interval': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

export interface TuningFlags {
  workers: number;
  /** Creates of one provider entry running at once (8 by default). */
  createConcurrency: number;
  /** The deadline of a create (30m by default); a provider entry's `createTimeout` overrides it. */
  createTimeoutMs: number;
  /** The deadline of every other provider call: get, delete, listByTag, check (2m by default). */
  callTimeoutMs: number;
  gcIntervalMs: number;
  gcGraceMs: number;
  healthIntervalMs: number;
  logLevel: LogLevelName;
}

/** The tuning flags as the options of both run modes (startOperator, startStandalone) name them; the log level goes to the logger. */
export function tuningOptions(f: TuningFlags) {
  return {
    workers: f.workers,
    createConcurrency: f.createConcurrency,
    createTimeoutMs: f.createTimeoutMs,
    callTimeoutMs: f.callTimeoutMs,
    gcIntervalMs: f.gcIntervalMs,
    gcGraceMs: f.gcGraceMs,
    healthIntervalMs: f.healthIntervalMs,
  };
}
