export interface SquidCloudInitOptions {
  /** The port Squid listens on: the Proxy's `spec.port`. */
  port: number;
  /** Clients allowed to use the proxy: one IPv4 CIDR or several. */
  allow: string | readonly string[];
  /** A string that must never appear in any log (the sentinel the test looks for). */
  sentinel: string;
}

const PORT_MAX = 65535;

/**
 * User-data that turns the image's stock Squid into the Proxy: it listens on the Proxy's port
 * and serves only the given subnet. Everything Squid does not need is off (no cache, no DNS
 * lookups of clients), and shutdown is quick so a restart does not wait 30 s.
 */
export function squidCloudInit(o: SquidCloudInitOptions): string {
  if (!Number.isInteger(o.port) || o.port < 1 || o.port > PORT_MAX) {
    throw new Error(`port must be an integer in 1-${PORT_MAX}, got ${JSON.stringify(o.port)}`);
  }
  const allow = typeof o.allow === 'string' ? [o.allow] : [...o.allow];
  for (const cidr of allow) {
    if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(cidr)) {
      throw new Error(`allow must be IPv4 CIDRs such as 10.0.0.0/24, got ${JSON.stringify(cidr)}`);
    }
  }
  if (allow.length === 0) throw new Error('allow needs at least one IPv4 CIDR');
  if (!/^[A-Za-z0-9_-]+$/.test(o.sentinel)) {
    throw new Error('sentinel must be letters, digits, "_" and "-" only');
  }
  const squidConf = [
    `# ${o.sentinel}`,
    `http_port ${o.port}`,
    `acl e2e_clients src ${allow.join(' ')}`,
    'http_access allow e2e_clients',
    'http_access deny all',
    'cache deny all',
    'shutdown_lifetime 1 seconds',
    'visible_hostname egress-proxy',
    'access_log stdio:/var/log/squid/access.log',
  ];
  return [
    '#cloud-config',
    'write_files:',
    '  - path: /etc/squid/squid.conf',
    '    permissions: "0644"',
    '    content: |',
    ...squidConf.map((l) => `      ${l}`),
    'runcmd:',
    // Restarted only when it is not serving the Proxy's port yet: a Squid that started after
    // write_files already runs this config, and restarting it would close the port for a while
    // after the Proxy was probed Ready (seconds on a slow emulated guest).
    `  - [sh, -c, "ss -Hltn 'sport = :${o.port}' | grep -q . || systemctl restart squid"]`,
    '',
  ].join('\n');
}
