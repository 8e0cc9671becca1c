import { describe, expect, it } from 'vitest';
import { parseRunFlags } from './run-flags.js';

describe('parseRunFlags', () => {
  it('has defaults for everything', () => {
    expect(parseRunFlags([], {})).toEqual({
      providersConfig: '/etc/egress-proxies/config/providers.yaml',
      operatorNamespace: 'egress-proxies-system',
      leaderElection: true,
      leaseName: 'egress-proxies-operator',
      workers: 4,
      createConcurrency: 8,
      gcIntervalMs: 300_000,
      gcGraceMs: 600_000,
      healthIntervalMs: 60_000,
      http: { host: '0.0.0.0', port: 8080 },
      logLevel: 'info',
      logFormat: 'json',
    });
  });

  it('reads flags and the environment', () => {
    const f = parseRunFlags(
      [
        '--installation-id=abc',
        '--no-leader-election',
        '--workers',
        '8',
        '--gc-grace',
        '1h',
        '--http-bind-address',
        ':9090',
      ],
      { POD_NAMESPACE: 'ops', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' },
    );
    expect(f).toMatchObject({
      installationId: 'abc',
      leaderElection: false,
      workers: 8,
      gcGraceMs: 3_600_000,
      http: { host: '0.0.0.0', port: 9090 },
      operatorNamespace: 'ops',
      otlpEndpoint: 'http://c:4318/v1/traces',
    });
  });

  it('names the bad flag and value', () => {
    expect(() => parseRunFlags(['--workers', 'many'], {})).toThrow(
      '--workers: expected an integer from 1 to 256, got "many"',
    );
    expect(() => parseRunFlags(['--gc-interval', 'often'], {})).toThrow(
      '--gc-interval: invalid duration "often"',
    );
    expect(() => parseRunFlags(['--log-level', 'loud'], {})).toThrow('--log-level: expected one of');
    expect(() => parseRunFlags(['--http-bind-address', 'nope'], {})).toThrow(
      '--http-bind-address: expected HOST:PORT',
    );
    expect(() => parseRunFlags(['--installation-id', 'a b'], {})).toThrow('--installation-id');
    expect(() => parseRunFlags(['--bogus'], {})).toThrow("Unknown option '--bogus'");
  });
});
