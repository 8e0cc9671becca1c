import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStandaloneFlags } from './standalone-flags.js';

describe('parseStandaloneFlags', () => {
  it('parses up with repeated -f and defaults', () => {
    const f = parseStandaloneFlags('up', [
      '-f',
      'a.yaml',
      '-f',
      'dir',
      '--providers',
      'p.yaml',
      '--demo',
      '--once',
      '--clean',
    ]);
    expect(f).toMatchObject({
      files: ['a.yaml', 'dir'],
      providers: 'p.yaml',
      demo: true,
      once: true,
      clean: true,
    });
    expect(f.timeoutMs).toBe(120_000);
    expect(f.output).toBe('auto');
    expect(f.http).toBeUndefined();
  });

  it('names the bad flag and value', () => {
    expect(() => parseStandaloneFlags('up', ['--providers', 'p'])).toThrow(
      'up: -f PATH (Proxy documents) is required',
    );
    expect(() => parseStandaloneFlags('down', [])).toThrow('down: --providers PATH is required');
    expect(() => parseStandaloneFlags('status', ['--output', 'xml'])).toThrow(
      '--output: "xml" is not one of table, plain, json',
    );
    expect(() => parseStandaloneFlags('up', ['-f', 'a', '--providers', 'p', '--timeout', 'soon'])).toThrow(
      '--timeout: "soon" is not a duration',
    );
    expect(() => parseStandaloneFlags('up', ['-f', 'a', '--providers', 'p', '--clean'])).toThrow(
      '--clean applies only with --once',
    );
    expect(() =>
      parseStandaloneFlags('up', ['-f', 'a', '--providers', 'p', '--metrics-bind-address', 'x']),
    ).toThrow('--metrics-bind-address: "x" is not HOST:PORT');
  });

  it('binds an IPv6 metrics address without its brackets, and loopback by default', () => {
    expect(
      parseStandaloneFlags('up', ['-f', 'a', '--providers', 'p', '--metrics-bind-address', '[::1]:9090'])
        .http,
    ).toEqual({ host: '::1', port: 9090 });
    expect(
      parseStandaloneFlags('up', ['-f', 'a', '--providers', 'p', '--metrics-bind-address', ':9090']).http,
    ).toEqual({ host: '127.0.0.1', port: 9090 });
  });

  it('status needs neither files nor providers', () => {
    expect(parseStandaloneFlags('status', ['--state-dir', '/s', '-o', 'json'])).toMatchObject({
      stateDir: '/s',
      output: 'json',
    });
  });
});

describe('parseStandaloneFlags: the pools gateway', () => {
  const base = ['-f', 'a.yaml', '--providers', 'p.yaml'];
  it('refuses a non-loopback gateway address without users (never an open proxy)', () => {
    expect(() => parseStandaloneFlags('up', [...base, '--gateway-listen', '0.0.0.0'])).toThrow(
      /--gateway-listen 0\.0\.0\.0: a gateway reachable from other machines needs --gateway-users DIR/,
    );
    expect(() => parseStandaloneFlags('up', [...base, '--gateway-socks-listen', '0.0.0.0:1080'])).toThrow(
      /--gateway-socks-listen 0\.0\.0\.0: a gateway reachable from other machines needs --gateway-users DIR/,
    );
    expect(parseStandaloneFlags('up', [...base, '--gateway-socks-listen', ':1080']).gatewaySocks).toEqual({
      host: '127.0.0.1',
      port: 1080,
    });
    expect(parseStandaloneFlags('up', [...base, '--gateway-listen', '127.0.0.2']).gatewayHost).toBe(
      '127.0.0.2',
    );
  });

  it('takes the pool drain timeout (2m by default), and names a bad one', () => {
    expect(parseStandaloneFlags('up', base).poolDrainTimeoutMs).toBe(120_000);
    expect(parseStandaloneFlags('up', [...base, '--pool-drain-timeout', '30s']).poolDrainTimeoutMs).toBe(
      30_000,
    );
    expect(() => parseStandaloneFlags('up', [...base, '--pool-drain-timeout', 'soon'])).toThrow(
      /--pool-drain-timeout: "?soon"? is not a duration/,
    );
  });

  it('reads the users directory, and names it when it cannot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ep-gw-users-'));
    try {
      writeFileSync(join(dir, 'alice'), 'wonder\n');
      const f = parseStandaloneFlags('up', [...base, '--gateway-listen', '0.0.0.0', '--gateway-users', dir]);
      expect(f.gatewayHost).toBe('0.0.0.0');
      expect(f.gatewayUsers?.check('alice', 'wonder')).toBe(true);
      expect(() => parseStandaloneFlags('up', [...base, '--gateway-users', join(dir, 'missing')])).toThrow(
        /--gateway-users .*missing: .*ENOENT/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
