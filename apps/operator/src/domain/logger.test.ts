import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOperatorLogger, providerLoggerFrom } from './logger.js';

function capture(level: Parameters<typeof createOperatorLogger>[0]) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { log: createOperatorLogger(level, sink), lines };
}

describe('operator logging', () => {
  it('writes JSON lines and maps provider V1 to debug and V2 to trace', async () => {
    const { log, lines } = capture('trace');
    const p = providerLoggerFrom(log).child({ provider: 'kvm-home' });
    p.log(1, 'instance created', { host: 'nas1' });
    p.log(2, 'domain xml', { bytes: 12 });
    log.info({ proxy: 'ns/p' }, 'proxy phase changed');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.level, l.msg, l.provider ?? l.proxy])).toEqual([
      ['debug', 'instance created', 'kvm-home'],
      ['trace', 'domain xml', 'kvm-home'],
      ['info', 'proxy phase changed', 'ns/p'],
    ]);
    expect(lines[0]).toMatchObject({ v: 1, host: 'nas1', component: 'egress-proxies-operator' });
  });

  it('drops provider detail below the configured level', async () => {
    const { log, lines } = capture('debug');
    const p = providerLoggerFrom(log);
    expect(p.verbosity).toBe(1);
    p.log(2, 'too detailed');
    p.log(1, 'kept');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
  });

  it('redacts cloud-init and tokens whoever logs them', async () => {
    const { log, lines } = capture('info');
    log.info({ cloudInit: '#cloud-config secret', req: { token: 'tok-123' } }, 'oops');
    await new Promise((r) => setImmediate(r));
    expect(JSON.stringify(lines)).not.toMatch(/secret|tok-123/);
  });
});
