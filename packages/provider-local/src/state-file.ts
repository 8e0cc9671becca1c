import { MANAGED_VALUE } from '@egress-proxies/contract';
import { canonicalIpv6Prefix } from '@egress-proxies/provider-utils';
import type { Engine } from './config.js';
import { isIP } from './is-ip.js';
import { LOCAL_STATE_FIELDS, LOCAL_STATE_KIND } from './marks.js';

/**
 * One instance's state file: the ownership mark (the fields garbage collection reads) plus the
 * runtime fields this provider needs to find and verify its process again after a restart.
 */
export interface InstanceRecord {
  uid: string;
  /** Undefined when the file holds no parsable time. */
  createdAt?: Date;
  installation?: string;
  namespace?: string;
  proxyName?: string;
  engine?: Engine;
  bindAddress?: string;
  port?: number;
  /** The source address of outgoing connections (`placement.zone`). */
  localAddress?: string;
  /** The IPv6 prefix the Node engine rotates its source address in (the egress plan's). */
  egressIpv6Prefix?: string;
  pid?: number;
  /** The process start time from /proc/<pid>/stat (clock ticks since boot), recorded at spawn. */
  startTime?: string;
}

export type DecodedState =
  | { kind: 'marked'; record: InstanceRecord }
  | { kind: 'foreign'; reason: string }
  | { kind: 'unreadable'; reason: string };

const F = LOCAL_STATE_FIELDS;

/** The file's text: the mark fields first, then the runtime fields; never a secret. */
export function encodeState(r: InstanceRecord): string {
  const out: Record<string, unknown> = {
    [F.kind]: LOCAL_STATE_KIND,
    [F.managed]: MANAGED_VALUE,
    [F.uid]: r.uid,
    [F.createdAt]: r.createdAt?.toISOString(),
    [F.installation]: r.installation,
    namespace: r.namespace,
    proxyName: r.proxyName,
    engine: r.engine,
    bindAddress: r.bindAddress,
    port: r.port,
    localAddress: r.localAddress,
    egressIpv6Prefix: r.egressIpv6Prefix,
    pid: r.pid,
    startTime: r.startTime,
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const validPort = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535 ? v : undefined;
const validPid = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 1 ? v : undefined;
const validIp = (v: unknown): string | undefined => (typeof v === 'string' && isIP(v) !== 0 ? v : undefined);

const validIpv6Prefix = (v: unknown): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const p = canonicalIpv6Prefix(v);
  return p === v ? p : undefined;
};

function parseDate(v: unknown): Date | undefined {
  if (typeof v !== 'string') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/**
 * Reads a state file. Only a file with our `kind` and the managed flag is ours; a runtime field
 * that does not parse is dropped (the instance then reads as not running), never an error.
 */
export function decodeState(text: string): DecodedState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { kind: 'unreadable', reason: 'not a JSON object' };
  }
  const o = raw as Record<string, unknown>;
  if (o[F.kind] !== LOCAL_STATE_KIND)
    return { kind: 'foreign', reason: `kind is ${JSON.stringify(o[F.kind])}` };
  if (o[F.managed] !== MANAGED_VALUE) return { kind: 'foreign', reason: 'no managed flag' };
  const uid = o[F.uid];
  if (uid !== undefined && typeof uid !== 'string')
    return { kind: 'unreadable', reason: 'uid is not a string' };
  const engine = o.engine === 'squid' || o.engine === 'node' ? o.engine : undefined;
  const record: InstanceRecord = { uid: uid ?? '' };
  const set = <K extends keyof InstanceRecord>(k: K, v: InstanceRecord[K] | undefined) => {
    if (v !== undefined) record[k] = v;
  };
  set('createdAt', parseDate(o[F.createdAt]));
  set('installation', str(o[F.installation]));
  set('namespace', str(o.namespace));
  set('proxyName', str(o.proxyName));
  set('engine', engine);
  set('bindAddress', validIp(o.bindAddress));
  set('port', validPort(o.port));
  set('localAddress', validIp(o.localAddress));
  set('egressIpv6Prefix', validIpv6Prefix(o.egressIpv6Prefix));
  set('pid', validPid(o.pid));
  set('startTime', typeof o.startTime === 'string' && /^\d+$/.test(o.startTime) ? o.startTime : undefined);
  return { kind: 'marked', record };
}
