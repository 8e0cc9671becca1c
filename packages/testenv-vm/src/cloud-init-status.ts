import { TestEnvVmError } from './errors.js';
import type { GuestExecResult } from './guest-agent.js';

/** cloud-init's boot stages in the order it runs them (the keys of /run/cloud-init/status.json). */
export const CLOUD_INIT_STAGES = ['init-local', 'init', 'modules-config', 'modules-final'] as const;
export type CloudInitStage = (typeof CLOUD_INIT_STAGES)[number];

export interface CloudInitProgress {
  /** The stage running now (status.json's `stage`), or undefined between stages and at the end. */
  running: string | undefined;
  /** Stages with a `finished` time. */
  finished: CloudInitStage[];
  /** Every stage's errors, prefixed with the stage. */
  errors: string[];
  datasource: string | undefined;
  /** True once every stage has finished and none is running: cloud-init is done. */
  done: boolean;
}

function object(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/**
 * Reads status.json as cloud-init writes it (`{"v1": {"stage": ..., "<stage>": {"start",
 * "finished", "errors"}, "datasource": ...}}`): structured fields, not `cloud-init status` text.
 */
export function parseCloudInitStatus(text: string): CloudInitProgress {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new TestEnvVmError('AGENT_PROTOCOL', `cloud-init status.json is not JSON: ${(e as Error).message}`);
  }
  const v1 = object(object(parsed)?.v1);
  if (!v1) throw new TestEnvVmError('AGENT_PROTOCOL', 'cloud-init status.json has no v1 object');
  const finished: CloudInitStage[] = [];
  const errors: string[] = [];
  for (const stage of CLOUD_INIT_STAGES) {
    const s = object(v1[stage]);
    if (typeof s?.finished === 'number') finished.push(stage);
    for (const e of Array.isArray(s?.errors) ? s.errors : []) errors.push(`${stage}: ${String(e)}`);
  }
  const running = typeof v1.stage === 'string' ? v1.stage : undefined;
  return {
    running,
    finished,
    errors,
    datasource: typeof v1.datasource === 'string' ? v1.datasource : undefined,
    done: running === undefined && finished.length === CLOUD_INIT_STAGES.length,
  };
}

/** The guest command whose output `progressFromCat` reads. */
export const STATUS_JSON = '/run/cloud-init/status.json';

/** Progress from `cat status.json` run in the guest; undefined while the file does not exist yet. */
export function progressFromCat(r: GuestExecResult): CloudInitProgress | undefined {
  if (r.exitCode !== 0) return undefined;
  return parseCloudInitStatus(r.stdout);
}
