import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLine, loggerOf, pinoLogger, silentLogger } from './logger.js';

describe('silent by default', () => {
  it('loggerOf without a logger is the silent one, and it writes nothing', () => {
    const l = loggerOf({});
    expect(l).toBe(silentLogger);
    expect(loggerOf(undefined)).toBe(silentLogger);
    expect(l.verbosity).toBe(0);
    expect(l.child({ a: 1 })).toBe(silentLogger);
    expect(() => l.log(1, 'x', { a: 1 })).not.toThrow();
  });
});

describe('createLogger', () => {
  const capture = (verbosity: number) => {
    const lines: LogLine[] = [];
    return { lines, logger: createLogger({ verbosity, sink: (l) => lines.push(l) }) };
  };

  it('writes outcomes at V1 and drops V2 detail at verbosity 1', () => {
    const { lines, logger } = capture(1);
    logger.log(1, 'kvm2 domain fetched', { name: 'proxy-1' });
    logger.log(2, 'domain xml', { xml: '<domain/>' });
    expect(lines).toEqual([{ level: 1, msg: 'kvm2 domain fetched', name: 'proxy-1' }]);
  });

  it('writes both tiers at verbosity 2 and nothing at 0', () => {
    const two = capture(2);
    two.logger.log(1, 'a');
    two.logger.log(2, 'b');
    expect(two.lines.map((l) => l.msg)).toEqual(['a', 'b']);
    const zero = capture(0);
    zero.logger.log(1, 'a');
    expect(zero.lines).toEqual([]);
  });

  it('child loggers add their fields to every line, and cannot overwrite level or msg', () => {
    const { lines, logger } = capture(2);
    const child = logger.child({ provider: 'kvm2-home' }).child({ host: 'nas1' });
    expect(child.verbosity).toBe(2);
    child.log(1, 'libvirt call', { rpc: 'DomainLookupByName', level: 9, msg: 'spoof' });
    expect(lines).toEqual([
      { provider: 'kvm2-home', host: 'nas1', rpc: 'DomainLookupByName', level: 1, msg: 'libvirt call' },
    ]);
  });
});

describe('pinoLogger with a real pino', () => {
  const memory = () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    return { lines, stream };
  };

  it('maps V1 to debug and V2 to trace, and takes verbosity from the pino level', () => {
    const { lines, stream } = memory();
    const p = pino({ level: 'debug' }, stream);
    const l = pinoLogger(p);
    expect(l.verbosity).toBe(1);
    l.log(1, 'proxmox vm fetched', { vmid: 100123 });
    l.log(2, 'proxmox vm config', { cores: 1 });
    p.flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 20, msg: 'proxmox vm fetched', vmid: 100123, v: 1 });
  });

  it('writes V2 at trace when pino is at trace, with child bindings', () => {
    const { lines, stream } = memory();
    const l = pinoLogger(pino({ level: 'trace' }, stream)).child({ provider: 'pve' });
    expect(l.verbosity).toBe(2);
    l.log(2, 'detail', { k: 'v' });
    expect(lines[0]).toMatchObject({ level: 10, msg: 'detail', provider: 'pve', k: 'v', v: 2 });
  });

  it('is silent when pino is at info, and honours a custom level mapping', () => {
    const { lines, stream } = memory();
    const p = pino({ level: 'info' }, stream);
    const quiet = pinoLogger(p);
    expect(quiet.verbosity).toBe(0);
    quiet.log(1, 'dropped');
    expect(lines).toHaveLength(0);
    const mapped = pinoLogger(p, { levels: { 1: 'info', 2: 'debug' } });
    expect(mapped.verbosity).toBe(1);
    mapped.log(1, 'outcome');
    mapped.log(2, 'dropped too');
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'outcome' })]);
  });
});
