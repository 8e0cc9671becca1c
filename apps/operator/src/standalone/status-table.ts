import { printable } from './live-table.js';
import type { PoolRecord, ProviderRecord, ProxyRecord } from './state-file.js';

/** One row of the status table. */
export interface StatusRow {
  name: string;
  provider: string;
  phase: string;
  /** `ip:port` clients connect to, when running. */
  address: string;
  healthy: string;
  message: string;
  /** The latest progress of the provider call running now (also in `message`). */
  progress?: string;
}

const elapsed = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

export function rowOf(r: ProxyRecord, now = Date.now()): StatusRow {
  const s = r.status ?? {};
  const spec = (r.spec ?? {}) as { provider?: string; address?: string };
  const deleting = r.deletionTimestamp !== undefined;
  let phase: string = deleting ? 'Deleting' : (s.phase ?? 'Pending');
  if (!deleting && s.phase && s.phase !== 'Ready' && s.phase !== 'Failed') {
    // A step that takes a while shows how long it has taken so far.
    const since = s.conditions?.reduce((t, c) => Math.max(t, Date.parse(c.lastTransitionTime) || 0), 0) ?? 0;
    if (since > 0 && now - since >= 5000) phase = `${phase} ${elapsed(now - since)}`;
  }
  const address = r.endpoint ? `${r.endpoint.host}:${r.endpoint.port}` : (s.ip ?? '');
  const message = s.message ?? '';
  return {
    name: r.namespace === 'default' ? r.name : `${r.namespace}/${r.name}`,
    provider: spec.provider ?? (spec.address ? 'external' : ''),
    phase,
    address: s.phase === 'Running' || s.phase === 'Ready' ? address : '',
    healthy: s.healthy === undefined ? '' : String(s.healthy),
    message: r.progress ? (message ? `${message} — ${r.progress}` : r.progress) : message,
    ...(r.progress ? { progress: r.progress } : {}),
  };
}

/** One row of the providers section: the latest Checker round of a provider. */
export interface ProviderRow {
  name: string;
  type: string;
  ready: string;
  /** Ready targets out of all (`2/3`). */
  targets: string;
  /** The first target that is not ready and why, or why the check could not run. */
  problem: string;
  lastCheckTime: string;
}

export function providerRowOf(p: ProviderRecord): ProviderRow {
  const s = p.status;
  const failing = s.targets?.find((t) => !t.ready);
  const problem = failing
    ? `${failing.target}: ${failing.reason}${failing.message ? `: ${failing.message}` : ''}`
    : (s.message ?? '');
  return {
    name: p.name,
    type: s.type,
    ready: s.ready === undefined ? '' : String(s.ready),
    targets: s.summary ?? '',
    problem,
    lastCheckTime: s.lastCheckTime ?? '',
  };
}

/** Columns padded, the last one cut so the line fits `width` when given. */
function columns<R extends object>(
  headers: R,
  cols: (keyof R)[],
  rows: readonly R[],
  width?: number,
): string[] {
  const all = [headers, ...rows];
  const cell = (r: R, c: keyof R) => String(r[c] ?? '');
  const w = cols.map((c) => Math.max(...all.map((r) => cell(r, c).length)));
  return all.map((r) => {
    const line = cols
      .map((c, i) => (i === cols.length - 1 ? cell(r, c) : cell(r, c).padEnd(w[i]! + 2)))
      .join('');
    return width && line.length > width ? `${line.slice(0, width - 1)}…` : line;
  });
}

const HEADERS: StatusRow = {
  name: 'NAME',
  provider: 'PROVIDER',
  phase: 'PHASE',
  address: 'ADDRESS',
  healthy: 'HEALTHY',
  message: 'MESSAGE',
};
const COLS: (keyof StatusRow)[] = ['name', 'provider', 'phase', 'address', 'healthy', 'message'];

/** The table as lines, columns padded; the message is cut to `width` when given. */
export function renderTable(rows: readonly StatusRow[], width?: number): string[] {
  return columns(HEADERS, COLS, rows, width);
}

const PROVIDER_HEADERS: ProviderRow = {
  name: 'PROVIDER',
  type: 'TYPE',
  ready: 'READY',
  targets: 'TARGETS',
  problem: 'PROBLEM',
  lastCheckTime: 'CHECKED',
};
const PROVIDER_COLS: (keyof ProviderRow)[] = ['name', 'type', 'ready', 'targets', 'problem'];

/** The providers section as lines. */
export function renderProviderTable(rows: readonly ProviderRow[], width?: number): string[] {
  return columns(PROVIDER_HEADERS, PROVIDER_COLS, rows, width);
}

/** One plain line per row (logs, pipes): `name provider phase address healthy=... message`. */
export function plainLine(r: StatusRow): string {
  // One line per change, whatever the provider's message holds (a newline would start a line
  // a reader takes for another proxy's).
  return printable(
    [r.name, r.provider, r.phase, r.address || '-', `healthy=${r.healthy || '-'}`, r.message]
      .join(' ')
      .trim(),
  );
}

/** One plain line per provider: `provider name type ready=... targets=... problem`. */
export function plainProviderLine(r: ProviderRow): string {
  return printable(
    ['provider', r.name, r.type, `ready=${r.ready || '-'}`, `targets=${r.targets || '-'}`, r.problem]
      .join(' ')
      .trim(),
  );
}

/** One row of the pools section: a pool's Ready count against its size, members and gateway. */
export interface PoolRow {
  pool: string;
  ready: string;
  members: string;
  gateway: string;
  /** With autoscale: the Scaling reason, the bounds and the load (`Idle 0..4, 0 conn, 0 req/s`). */
  scaling?: string;
}

export function poolRowOf(p: PoolRecord): PoolRow {
  return {
    pool: p.key.startsWith('default/') ? p.key.slice('default/'.length) : p.key,
    ready: `${p.ready}/${p.desired}`,
    // A member cooled down or draining is marked: it exists but takes no new requests now.
    members:
      p.members
        .map((m) =>
          p.draining?.includes(m.name) ? `${m.name}(draining)` : m.cooledDown ? `${m.name}(cooled)` : m.name,
        )
        .join(',') || '-',
    gateway: p.gateway ?? '-',
    ...(p.autoscale ? { scaling: scalingText(p.autoscale) } : {}),
  };
}

function scalingText(a: NonNullable<PoolRecord['autoscale']>): string {
  const rps = Math.round(a.requestsPerSecond * 10) / 10;
  const waiting = a.waiting ? `, ${a.waiting} waiting` : '';
  return `${a.reason} ${a.min}..${a.max}, ${a.activeConnections} conn, ${rps} req/s${waiting}`;
}

const POOL_HEADERS: PoolRow = {
  pool: 'POOL',
  ready: 'READY',
  gateway: 'GATEWAY',
  members: 'MEMBERS',
  scaling: 'SCALING',
};
const POOL_COLS: (keyof PoolRow)[] = ['pool', 'ready', 'gateway', 'members'];

/** The pools section as lines (a SCALING column when a pool autoscales); the member list is cut to `width` when given. */
export function renderPoolTable(rows: readonly PoolRow[], width?: number): string[] {
  const cols: (keyof PoolRow)[] = rows.some((r) => r.scaling)
    ? ['pool', 'ready', 'scaling', 'gateway', 'members']
    : POOL_COLS;
  return columns(
    POOL_HEADERS,
    cols,
    rows.map((r) => ({ ...r, scaling: r.scaling ?? '-' })),
    width,
  );
}

/** One plain line per pool: `pool name ready=1/2 gateway=URL members=a,b` (and `scaling="..."` with autoscale). */
export function plainPoolLine(r: PoolRow): string {
  const scaling = r.scaling ? ` scaling=${JSON.stringify(r.scaling)}` : '';
  return `pool ${r.pool} ready=${r.ready}${scaling} gateway=${r.gateway} members=${r.members}`;
}
