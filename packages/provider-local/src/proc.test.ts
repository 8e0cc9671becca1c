import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isLiveState, parseListeners, parseProcStat } from './proc.js';

describe('parseProcStat', () => {
  it('reads state and start time after a command name with spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[19] = '424242';
    expect(parseProcStat(`123 (weird ) (name) ${fields.join(' ')}`)).toEqual({
      state: 'S',
      startTime: '424242',
    });
  });

  it('parses this process', () => {
    const st = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(st?.state).toBe('R');
    expect(st?.startTime).toMatch(/^\d+$/);
  });

  it('rejects text that is not a stat line', () => {
    expect(parseProcStat('garbage')).toBeUndefined();
    expect(parseProcStat('1 (x) S 2')).toBeUndefined();
  });

  it('treats zombies and dead processes as not live', () => {
    expect(isLiveState('S')).toBe(true);
    expect(isLiveState('Z')).toBe(false);
    expect(isLiveState('X')).toBe(false);
  });
});

describe('parseListeners', () => {
  it('keeps LISTEN rows with their port and inode', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:A8CA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 391102 1 0 100 0 0 10 0',
      '   1: 0100007F:8D8F 0100007F:A8CA 01 00000000:00000000 00:00000000 00000000     0        0 426029 2 0 100 0 0 10 0',
      '',
    ].join('\n');
    expect(parseListeners(text)).toEqual([{ port: 0xa8ca, inode: '391102' }]);
  });
});
