import { describe, expect, it } from 'vitest';
import { parseRunFlags } from './run-flags.js';

describe('parseRunFlags', () => {
  it('has defaults for everything', () => {
    expect(parseRunFlags([], {})).toEqual({
      providersConfig: '/etc/egress-proxies/config/providers.yaml',
      operatorNamespace: 'egress-proxies-system',
      leaderElection: true,
      leaseName: 'egress-proxies-operator',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      reconcileTimeoutMs: 600_000,
      latchRetryMs: 1_800_000,
      transientBackoff: { baseMs: 1_000, maxMs: 300_000 },
      quotaBackoff: { baseMs: 60_000, maxMs: 1_800_000 },
      workers: 4,
      createConcurrency: 8,
      createTimeoutMs: 30 * 60_000,
      callTimeoutMs: 2 * 60_000,
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
    expect(() => parseRunFlags(['--transient-backoff', '5s'], {})).toThrow(
      '--transient-backoff: expected MIN,MAX durations with 0 < MIN <= MAX (e.g. 1s,5m), got "5s"',
    );
    expect(() => parseRunFlags(['--quota-backoff', '2m,1m'], {})).toThrow(
      '--quota-backoff: expected MIN,MAX',
    );
    expect(() => parseRunFlags(['--renew-deadline', '20s'], {})).toThrow(
      '--retry-period (2000 ms) < --renew-deadline (20000 ms) < --lease-duration (15000 ms) must hold',
    );
  });

  it('reads the call deadlines, and names a bad one', () => {
    const f = parseRunFlags(['--create-timeout', '1h30m', '--call-timeout', '45s'], {});
    expect([f.createTimeoutMs, f.callTimeoutMs]).toEqual([5_400_000, 45_000]);
    expect(() => parseRunFlags(['--create-timeout', 'forever'], {})).toThrow(/--create-timeout.*"forever"/);
  });

  it('reads the timing flags a test or a slow backend needs', () => {
    const f = parseRunFlags(
      [
        '--lease-duration=4s',
        '--renew-deadline=3s',
        '--retry-period=500ms',
        '--reconcile-timeout=5s',
        '--latch-retry=20s',
        '--transient-backoff=200ms,5s',
        '--quota-backoff=1s,10s',
      ],
      {},
    );
    expect(f).toMatchObject({
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 500,
      reconcileTimeoutMs: 5_000,
      latchRetryMs: 20_000,
      transientBackoff: { baseMs: 200, maxMs: 5_000 },
      quotaBackoff: { baseMs: 1_000, maxMs: 10_000 },
    });
  });

  it('is chosen by --log-format and anything else is refused, naming the value', () => {
    expect(parseRunFlags(['--log-format', 'text'], {}).logFormat).toBe('text');
    expect(() => parseRunFlags(['--log-format', 'pretty'], {})).toThrow(
      '--log-format: expected one of json, text, got "pretty"',
    );
  });

  it('serves the status page only with an authentication source, and says so', () => {
    expect(parseRunFlags([], {}).statusPage).toBeUndefined();
    expect(
      parseRunFlags(['--status-page-address', ':8443', '--status-page-auth', 'kubernetes'], {}).statusPage,
    ).toEqual({ host: '0.0.0.0', port: 8443, auth: 'kubernetes' });
    expect(() => parseRunFlags(['--status-page-address', ':8443'], {})).toThrow(
      '--status-page-address: the page lists every member and its address, so it is never served without authentication: add --status-page-auth kubernetes',
    );
    expect(() => parseRunFlags(['--status-page-address', ':8443', '--status-page-auth', 'none'], {})).toThrow(
      '--status-page-auth: expected kubernetes, got "none"',
    );
    expect(() => parseRunFlags(['--status-page-auth', 'kubernetes'], {})).toThrow(
      '--status-page-auth: set --status-page-address too',
    );
  });
});
