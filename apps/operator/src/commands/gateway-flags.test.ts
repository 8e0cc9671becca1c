import { describe, expect, it } from 'vitest';
import { parseGatewayFlags } from './gateway-flags.js';
import { effectiveSettings } from './gateway-run.js';

describe('gateway flags', () => {
  it('leaves every pool-given setting unset when its flag is absent', () => {
    const f = parseGatewayFlags(['--pool', 'team-a/crawl']);
    expect(f).toEqual({
      pool: { namespace: 'team-a', name: 'crawl' },
      listen: { host: '127.0.0.1' },
      drainMs: 20_000,
      logLevel: 'info',
      logFormat: 'json',
    });
  });

  it('reads every override, a host-only --listen and an IPv6 one', () => {
    const f = parseGatewayFlags([
      '--members',
      'a=127.0.0.1:3128,b=[::1]:3129',
      '--listen',
      '0.0.0.0',
      '--selection',
      'least-connections',
      '--rotate',
      'per-connection',
      '--session-ttl',
      '5m',
      '--cooldown',
      '2m',
      '--ban-statuses',
      '403, 429,503',
      '--log-format',
      'text',
    ]);
    expect(f).toMatchObject({
      members: [
        { name: 'a', host: '127.0.0.1', port: 3128 },
        { name: 'b', host: '::1', port: 3129 },
      ],
      listen: { host: '0.0.0.0' },
      selection: 'least-connections',
      rotate: 'per-connection',
      sessionTtlMs: 300_000,
      cooldownMs: 120_000,
      banStatuses: [403, 429, 503],
      logFormat: 'text',
    });
    expect(parseGatewayFlags(['--members', 'a=h:1', '--socks-listen', ':1080']).socksListen).toEqual({
      host: '127.0.0.1',
      port: 1080,
    });
    expect(parseGatewayFlags(['--members', 'a=h:1', '--listen', '[::1]:9000']).listen).toEqual({
      host: '::1',
      port: 9000,
    });
  });

  it.each([
    [['--pool', 'crawl'], '--pool: expected NAMESPACE/NAME, got "crawl"'],
    [['--pool', 'a/b', '--members', 'x=h:1'], 'exactly one of --pool'],
    [['--members', 'a=h:1', '--listen', 'a b'], '--listen: expected HOST or HOST:PORT, got "a b"'],
    [['--members', 'a=h:1', '--listen', 'h:70000'], '--listen: expected HOST or HOST:PORT, got "h:70000"'],
    [['--members', 'a=h:1', '--ban-statuses', '200'], '--ban-statuses: expected HTTP error statuses 400-599'],
    [['--members', 'a=h:1', '--log-format', 'xml'], '--log-format: expected one of json, text, got "xml"'],
    [['--members', 'a=h:1', '--selection', 'first'], '--selection: expected one of round-robin'],
    [['--members', 'a=h:1', '--socks-listen', '1080'], '--socks-listen: expected HOST:PORT, got "1080"'],
    [
      ['--members', 'a=h:1', '--rotate', 'sometimes'],
      '--rotate: expected one of per-request, per-connection, got "sometimes"',
    ],
  ])('refuses %j, naming the flag and value', (args, message) => {
    expect(() => parseGatewayFlags(args)).toThrow(message);
  });

  it('settings come from the flags, else the pool, else the defaults', () => {
    const pool = {
      enabled: true,
      selection: 'random' as const,
      rotate: 'per-connection' as const,
      sessionTTL: '1m',
      cooldown: '1h',
      banStatuses: [429],
      port: 9000,
    };
    expect(effectiveSettings(parseGatewayFlags(['--pool', 'a/b']), pool)).toEqual({
      selection: 'random',
      sessionTtlMs: 60_000,
      cooldownMs: 3_600_000,
      banStatuses: [429],
      rotate: 'per-connection',
    });
    expect(
      effectiveSettings(parseGatewayFlags(['--pool', 'a/b', '--rotate', 'per-request']), pool).rotate,
    ).toBe('per-request');
    expect(effectiveSettings(parseGatewayFlags(['--pool', 'a/b', '--cooldown', '5s']), pool).cooldownMs).toBe(
      5000,
    );
    expect(effectiveSettings(parseGatewayFlags(['--members', 'a=h:1']))).toEqual({
      selection: 'round-robin',
      sessionTtlMs: 600_000,
      cooldownMs: 60_000,
      banStatuses: [403, 429],
      rotate: 'per-request',
    });
  });
});
