import { describe, expect, it } from 'vitest';
import { createOperatorLogger } from './logger.js';
import { textDestination, textLine } from './text-format.js';

describe('--log-format text', () => {
  it('writes time, level, message and fields, with the redaction already applied', () => {
    let out = '';
    const log = createOperatorLogger('info', textDestination({ write: (s: string) => (out += s) }));
    log.info({ proxy: 'default/a', attempt: 2, cloudInit: '#cloud-config secret-sentinel' }, 'created it');
    expect(out).toMatch(
      /^\d{4}-\d\d-\d\dT\S+ INFO {2}created it proxy=default\/a attempt=2 cloudInit=\[redacted\]\n$/,
    );
    expect(out).not.toContain('secret-sentinel');
  });

  it('quotes values with spaces and passes a non-JSON line through', () => {
    expect(textLine('{"time":"t","level":"warn","msg":"m","why":"a b"}')).toBe('t WARN  m why="a b"\n');
    expect(textLine('not json')).toBe('not json\n');
  });
});
