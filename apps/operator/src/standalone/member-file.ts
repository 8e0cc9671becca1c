import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DrainingMember } from '../pool/member-drain.js';
import type { StatusPageAutoscale } from '../status-page/page-data.js';

/** A member a pool created under `up`: enough to adopt it again after a restart. */
export interface MemberRecord {
  name: string;
  provider?: string;
  zone?: string;
  createdAt: number;
  templateHash: string;
  /** Chosen to go while it still carried connections: it gets no new work until they end or time out. */
  draining?: Omit<DrainingMember, 'name'>;
}

export interface PoolState {
  /** By pool key (`namespace/name`). */
  members: Record<string, MemberRecord[]>;
  /** Recycle annotation values already acted on, by pool key. */
  recycled?: Record<string, string>;
  /** By pool key: the autoscaler's size and clocks, so a restart keeps them (spec.replicas in the cluster). */
  autoscale?: Record<string, AutoscaleRecord>;
}

/** What the autoscaler of a pool under `up` last chose and when. */
export interface AutoscaleRecord {
  replicas: number;
  lastActiveTime?: number;
  lastScaleTime?: number;
}

/** A pool's autoscale state as `up` shows it (in its view, the state file and the status page). */
export type PoolAutoscaleView = StatusPageAutoscale;

const FILE = 'pools.json';

export function readPoolState(stateDir: string): PoolState {
  try {
    const v = JSON.parse(readFileSync(join(stateDir, FILE), 'utf8')) as PoolState;
    return v && typeof v.members === 'object' ? v : { members: {} };
  } catch {
    return { members: {} };
  }
}

/** Atomic (temp file, then rename): a crash never leaves half a member list. */
export function writePoolState(stateDir: string, state: PoolState): void {
  mkdirSync(stateDir, { recursive: true });
  const tmp = join(stateDir, `.${FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, join(stateDir, FILE));
}
