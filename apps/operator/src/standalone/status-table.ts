import type { ProxyRecord } from './state-file.js';

/** One row of the status table. */
export interface StatusRow {
  name: string;
  provider: string;
  phase: string;
  /** `ip:port` clients connect to, when running. */
  address: string;
  healthy: string;
  message: string;
}

export function rowOf(r: ProxyRecord, now = Date.now()): StatusRow {
  const s = r.status ?? {};
  const spec = (r.spec ?? {}) as { provider?: string; address?: string };
  const deleting = r.deletionTimestamp !== undefined;
  let phase: string = deleting ? 'Deleting' : (s.phase ?? 'Pending');
  if (!deleting && s.phase && s.phase !== 'Ready' && s.phase !== 'Failed') {
    // A step that takes a while shows how long it has taken so far.
    const since = s.conditions?.reduce((t, c) => Math.max(t, Date.parse(c.lastTransitionTime) || 0), 0) ?? 0;
    if (since > 0 && now - since >= 5000) phase = `${phase} ${Math.round((now - since) / 1000)}s`;
  }
  const address = r.endpoint ? `${r.endpoint.host}:${r.endpoint.port}` : (s.ip ?? '');
  return {
    name: r.namespace === 'default' ? r.name : `${r.namespace}/${r.name}`,
    provider: spec.provider ?? (spec.address ? 'external' : ''),
    phase,
    address: s.phase === 'Running' || s.phase === 'Ready' ? address : '',
    healthy: s.healthy === undefined ? '' : String(s.healthy),
    message: s.message ?? '',
  };
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
  const all = [HEADERS, ...rows];
  const w = COLS.map((c) => Math.max(...all.map((r) => r[c].length)));
  return all.map((r) => {
    const line = COLS.map((c, i) => (i === COLS.length - 1 ? r[c] : r[c].padEnd(w[i]! + 2))).join('');
    return width && line.length > width ? `${line.slice(0, width - 1)}…` : line;
  });
}

/** One plain line per row (logs, pipes): `name provider phase address healthy=... message`. */
export function plainLine(r: StatusRow): string {
  return [r.name, r.provider, r.phase, r.address || '-', `healthy=${r.healthy || '-'}`, r.message]
    .join(' ')
    .trim();
}
