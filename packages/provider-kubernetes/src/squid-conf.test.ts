import { describe, expect, it } from 'vitest';
import { isCidr, squidConf } from './squid-conf.js';

const lines = (s: string) => s.split('\n').filter((l) => l && !l.startsWith('#'));

describe('squidConf', () => {
  const conf = squidConf(3128, ['10.0.0.0/8', 'fd00::/8']);

  it('listens on the port and allows only the configured sources, then denies everything', () => {
    const l = lines(conf);
    expect(l).toContain('http_port 3128');
    expect(l).toContain('acl ep_allowed_src src 10.0.0.0/8 fd00::/8');
    const access = l.filter((x) => x.startsWith('http_access'));
    expect(access).toEqual([
      'http_access deny manager',
      'http_access deny ep_loopback_dst',
      'http_access deny ep_linklocal_dst',
      'http_access allow ep_allowed_src',
      'http_access deny all',
    ]);
    expect(conf).not.toMatch(/http_access\s+allow\s+all/);
  });

  it('denies loopback and link-local destinations (cloud metadata)', () => {
    expect(lines(conf)).toContain('acl ep_linklocal_dst dst 169.254.0.0/16 fe80::/10');
    expect(lines(conf)).toContain('acl ep_loopback_dst dst 127.0.0.0/8 ::1');
  });

  it('keeps writable paths inside the emptyDirs and logs to the standard streams', () => {
    const l = lines(conf);
    expect(l).toContain('pid_filename /run/squid/squid.pid');
    expect(l).toContain('coredump_dir /var/spool/squid');
    expect(l).toContain('access_log stdio:/dev/stdout');
    expect(l).toContain('cache_log stdio:/dev/stderr');
    expect(l).toContain('cache deny all');
    expect(l).toContain('forwarded_for delete');
  });

  it('turns the ICMP pinger off (no capability to open its raw socket)', () => {
    expect(lines(conf)).toContain('pinger_enable off');
  });

  it('uses the port it is given', () => {
    expect(lines(squidConf(8080, ['192.168.0.0/16']))).toContain('http_port 8080');
  });

  it.each([0, 65536, 3.5, Number.NaN])('rejects port %s naming it', (port) => {
    expect(() => squidConf(port, ['10.0.0.0/8'])).toThrow(String(port));
  });

  it('rejects an empty source list', () => {
    expect(() => squidConf(3128, [])).toThrow(/allowedSourceCIDRs is empty/);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '::/129', 'all', '10.0.0.0/8\nhttp_access allow all', ' 10.0.0.0/8'])(
    'rejects %j, so nothing can be injected into the config',
    (cidr) => {
      expect(() => squidConf(3128, [cidr])).toThrow(JSON.stringify(cidr));
    },
  );

  it('isCidr accepts IPv4 and IPv6 prefixes', () => {
    expect(isCidr('0.0.0.0/0')).toBe(true);
    expect(isCidr('2001:db8::/32')).toBe(true);
    expect(isCidr('2001:db8::/x')).toBe(false);
  });
});
