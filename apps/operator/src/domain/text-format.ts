import type { DestinationStream } from 'pino';

export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

const OWN = new Set(['time', 'level', 'msg', 'component', 'pid', 'hostname']);

const shown = (v: unknown): string => {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
};

/**
 * One pino JSON line as a line for a human at a terminal: `time LEVEL message key=value ...`.
 * pino has already applied its redaction, so a secret stays `[redacted]` here too.
 */
export function textLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const fields = Object.entries(o)
    .filter(([k]) => !OWN.has(k))
    .map(([k, v]) => `${k}=${shown(v)}`);
  const level = String(o.level ?? 'info')
    .toUpperCase()
    .padEnd(5);
  return `${[o.time ?? '', level, o.msg ?? '', ...fields].join(' ').trim()}\n`;
}

/** A pino destination that writes `textLine`s to `out` (stdout by default). */
export function textDestination(out: { write(s: string): unknown } = process.stdout): DestinationStream {
  return { write: (line: string) => out.write(textLine(line)) };
}
