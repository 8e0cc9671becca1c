import { describe, expect, it } from 'vitest';
import { squidArgs, squidConf } from './squid.js';

describe('squidConf', () => {
  const base = {
    bindAddress: '127.0.0.1',
    port: 40100,
    allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
    runtimeDir: '/s/run/p',
  };

  it('listens on bind:port, allows only the CIDRs, caches nothing and keeps its files in the runtime dir', () => {
    const conf = squidConf(base);
    const lines = conf.trim().split('\n');
    expect(lines).toContain('http_port 127.0.0.1:40100');
    expect(lines).toContain('acl egress_clients src 127.0.0.0/8 ::1/128');
    expect(lines.indexOf('http_access allow egress_clients')).toBeLessThan(
      lines.indexOf('http_access deny all'),
    );
    expect(lines).toContain('cache deny all');
    expect(lines).toContain('pid_filename /s/run/p/squid.pid');
    expect(lines).toContain('cache_log /s/run/p/cache.log');
    expect(lines).toContain('access_log stdio:/s/run/p/access.log');
    expect(conf).not.toContain('cache_dir');
    expect(conf).not.toContain('tcp_outgoing_address');
    expect(conf).not.toContain('cache_effective_user');
  });

  it('brackets an IPv6 bind address and adds the outgoing address and user when given', () => {
    const conf = squidConf({ ...base, bindAddress: '::1', localAddress: '10.1.2.3', effectiveUser: 'proxy' });
    expect(conf).toContain('http_port [::1]:40100');
    expect(conf).toContain('tcp_outgoing_address 10.1.2.3');
    expect(conf).toContain('cache_effective_user proxy');
  });

  it('runs in the foreground with the config path on the command line', () => {
    expect(squidArgs('/s/run/p')).toEqual(['-N', '-f', '/s/run/p/squid.conf']);
  });
});
