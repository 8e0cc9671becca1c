import type { LogFields, Logger, LogLevel } from '@egress-proxies/contract';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function size(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 || n >= 10 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

/**
 * The progress a provider's log line reports, as a short text (`image download 43% (180 MiB of
 * 420 MiB, 12 MiB/s)`), or undefined when the line is not progress-shaped: progress lines carry
 * `percent`, or `bytes` with `total`. A field named `rate...` or `...PerSec` is a byte rate.
 */
export function progressText(msg: string, fields: LogFields = {}): string | undefined {
  const bytes = num(fields.bytes);
  const total = num(fields.total);
  let percent = num(fields.percent);
  if (percent === undefined && bytes !== undefined && total !== undefined && total > 0)
    percent = Math.floor((bytes / total) * 100);
  if (percent === undefined) return undefined;
  const rateKey = Object.keys(fields).find((k) => /^rate|PerSec$/i.test(k) && num(fields[k]) !== undefined);
  const detail = [
    bytes !== undefined && total !== undefined ? `${size(bytes)} of ${size(total)}` : undefined,
    rateKey ? `${size(num(fields[rateKey])!)}/s` : undefined,
  ].filter(Boolean);
  const what = msg.replace(/\s*progress$/i, '').trim() || 'progress';
  return `${what} ${Math.floor(percent)}%${detail.length ? ` (${detail.join(', ')})` : ''}`;
}

/**
 * A logger that forwards every line to `inner` and hands the progress-shaped ones to `onProgress`;
 * it takes V1 lines even when `inner` is quieter, since progress is for the display, not the log.
 */
export function progressLogger(
  inner: Logger | undefined,
  onProgress: (text: string) => void,
  fields: LogFields = {},
): Logger {
  return {
    verbosity: Math.max(inner?.verbosity ?? 0, 1),
    log(level: LogLevel, message: string, lineFields?: LogFields) {
      inner?.log(level, message, lineFields);
      if (level !== 1) return;
      const text = progressText(message, { ...fields, ...lineFields });
      if (text) onProgress(text);
    },
    child(more: LogFields) {
      return progressLogger(inner?.child(more), onProgress, { ...fields, ...more });
    },
  };
}
