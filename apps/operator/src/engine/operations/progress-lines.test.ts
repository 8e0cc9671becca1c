import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { progressLogger, progressText } from './progress-lines.js';

const MiB = 1024 * 1024;

describe('progress lines', () => {
  it('formats an image download line (percent, bytes of total, rate)', () => {
    expect(
      progressText('image download progress', {
        bytes: 180 * MiB,
        total: 420 * MiB,
        percent: 42.9,
        rateBytesPerSec: 12 * MiB,
      }),
    ).toBe('image download 42% (180 MiB of 420 MiB, 12 MiB/s)');
    // percent computed from bytes and total when absent
    expect(progressText('copying disk', { bytes: 512, total: 2048 })).toBe(
      'copying disk 25% (512 B of 2.0 KiB)',
    );
    expect(progressText('step', { percent: 7 })).toBe('step 7%');
  });

  it('ignores lines that are not progress-shaped', () => {
    expect(progressText('base image cached', { bytes: 420 * MiB, durationMs: 10 })).toBeUndefined();
    expect(progressText('fetching base image into host pool', { bytes: 1 })).toBeUndefined();
    expect(progressText('created', {})).toBeUndefined();
  });

  it('forwards every line to the inner logger and captures V1 progress, even when the inner one is silent', () => {
    const lines: LogLine[] = [];
    const seen: string[] = [];
    const inner = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
    const log = progressLogger(inner, (t) => seen.push(t)).child({ provider: 'p' });
    log.log(1, 'image download progress', { bytes: 1, total: 4 });
    log.log(2, 'detail', { percent: 50 });
    log.log(1, 'created', { id: 'x' });
    expect(seen).toEqual(['image download 25% (1 B of 4 B)']);
    expect(lines.map((l) => [l.msg, l.provider])).toEqual([
      ['image download progress', 'p'],
      ['detail', 'p'],
      ['created', 'p'],
    ]);
    const quiet: string[] = [];
    const q = progressLogger(undefined, (t) => quiet.push(t));
    expect(q.verbosity).toBe(1);
    q.log(1, 'x', { percent: 3 });
    expect(quiet).toEqual(['x 3%']);
  });
});
