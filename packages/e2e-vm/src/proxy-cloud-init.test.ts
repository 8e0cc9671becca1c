import { describe, expect, it } from 'vitest';
import { squidCloudInit } from './proxy-cloud-init.js';

describe('squidCloudInit', () => {
  it('writes a Squid config for the port and subnet and restarts Squid unless it serves the port already', () => {
    const text = squidCloudInit({ port: 3129, allow: '10.1.2.0/24', sentinel: 'sentinel-1' });
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    expect(text).toContain('      http_port 3129\n');
    expect(text).toContain('      acl e2e_clients src 10.1.2.0/24\n');
    expect(text).toContain('      # sentinel-1\n');
    expect(text.indexOf('http_access allow e2e_clients')).toBeLessThan(text.indexOf('http_access deny all'));
    expect(text).toContain(`  - [sh, -c, "ss -Hltn 'sport = :3129' | grep -q . || systemctl restart squid"]`);
  });

  it('lets several subnets in (the DHCP LAN and a planned block)', () => {
    const text = squidCloudInit({ port: 3129, allow: ['10.1.2.0/24', '203.0.113.0/28'], sentinel: 's' });
    expect(text).toContain('      acl e2e_clients src 10.1.2.0/24 203.0.113.0/28\n');
  });

  it('names the bad value', () => {
    expect(() => squidCloudInit({ port: 70000, allow: '10.0.0.0/24', sentinel: 's' })).toThrow(/70000/);
    expect(() => squidCloudInit({ port: 3128, allow: '10.0.0.0', sentinel: 's' })).toThrow(/"10\.0\.0\.0"/);
    expect(() => squidCloudInit({ port: 3128, allow: '10.0.0.0/8', sentinel: 'a b' })).toThrow(/sentinel/);
    expect(() => squidCloudInit({ port: 3128, allow: ['10.0.0.0/8', 'x'], sentinel: 's' })).toThrow(/"x"/);
    expect(() => squidCloudInit({ port: 3128, allow: [], sentinel: 's' })).toThrow(/at least one/);
  });
});
