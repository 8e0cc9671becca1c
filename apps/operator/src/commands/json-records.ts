import type { PoolView } from '../standalone/standalone-pools.js';
import type { ProviderRecord, ProxyRecord } from '../standalone/state-file.js';

/**
 * What `--output json` prints: one JSON object per line, each with a `type` saying what it is, so
 * a script can dispatch on it; values keep their JSON types (booleans, numbers), unlike the table.
 */
export type JsonRecord = { type: string } & Record<string, unknown>;

export interface ProxyJson extends JsonRecord {
  type: 'proxy';
  namespace: string;
  name: string;
  provider: string;
  phase: string;
  deleting: boolean;
  /** Where clients connect, once running. */
  endpoint?: { host: string; port: number };
  healthy?: boolean;
  message?: string;
  progress?: string;
}

export interface ProviderJson extends JsonRecord {
  type: 'provider';
  name: string;
  providerType: string;
  ready?: boolean;
  /** Ready targets out of all (`2/3`). */
  summary?: string;
  targets: { target: string; ready: boolean; reason: string; message?: string }[];
  lastCheckTime?: string;
}

export function proxyJson(r: ProxyRecord): ProxyJson {
  const s = r.status ?? {};
  const spec = (r.spec ?? {}) as { provider?: string; address?: string };
  const running = s.phase === 'Running' || s.phase === 'Ready';
  return {
    type: 'proxy',
    namespace: r.namespace,
    name: r.name,
    provider: spec.provider ?? (spec.address ? 'external' : ''),
    phase: r.deletionTimestamp !== undefined ? 'Deleting' : (s.phase ?? 'Pending'),
    deleting: r.deletionTimestamp !== undefined,
    ...(running && r.endpoint ? { endpoint: r.endpoint } : {}),
    ...(typeof s.healthy === 'boolean' ? { healthy: s.healthy } : {}),
    ...(s.message ? { message: s.message } : {}),
    ...(r.progress ? { progress: r.progress } : {}),
  };
}

export function providerJson(p: ProviderRecord): ProviderJson {
  const s = p.status;
  return {
    type: 'provider',
    name: p.name,
    providerType: s.type,
    ...(typeof s.ready === 'boolean' ? { ready: s.ready } : {}),
    ...(s.summary ? { summary: s.summary } : {}),
    targets: (s.targets ?? []).map((t) => ({
      target: t.target,
      ready: t.ready,
      reason: t.reason,
      ...(t.message ? { message: t.message } : {}),
    })),
    ...(s.lastCheckTime ? { lastCheckTime: s.lastCheckTime } : {}),
  };
}

/** A pool under `up`: its view by the same names (members as the cluster's status.members). */
export interface PoolJson extends JsonRecord, Omit<PoolView, 'key'> {
  type: 'pool';
  /** `namespace/name`. */
  pool: string;
}

export function poolJson(v: PoolView): PoolJson {
  const { key, ...view } = v;
  return { type: 'pool', pool: key, ...view };
}

/** One line of `--output json`. */
export const jsonLine = (record: JsonRecord): string => `${JSON.stringify(record)}\n`;
