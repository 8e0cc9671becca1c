import { describe, expect, it } from 'vitest';
import { ProvidersConfigError } from './providers-config-error.js';
import {
  isEntryOf,
  loadProvidersConfig,
  PROVIDER_TYPES,
  type ProviderEntry,
  parseProviderConfig,
  providerConfigSchemas,
} from './providers-file.js';

const kvm2Block = () => ({
  sshKeyFile: '/etc/proxy-operator/kvm/id_ed25519',
  knownHostsFile: '/etc/proxy-operator/kvm/known_hosts',
  images: { 'debian-13': { url: 'https://cloud.debian.org/images/debian-13-generic-amd64.qcow2' } },
  machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
  hosts: [{ name: 'nas1', address: 'nas1.home.lan:22', user: 'virt', bridge: 'br0' }],
});
const proxmoxBlock = () => ({
  url: 'https://pve1.lan:8006',
  tokenFile: '/etc/proxy-operator/proxmox/token',
  nodes: ['pve1'],
  isoStorage: 'local',
  templates: { 'debian-13': 9000 },
  machineTypes: { small: { cores: 1, memoryMiB: 1024 } },
});
const gcpBlock = () => ({ project: 'my-proxies-123' });

/** Loads `config` expecting failure; returns the issues. */
function issuesOf(config: unknown): { path: string; message: string }[] {
  try {
    loadProvidersConfig(config);
  } catch (err) {
    expect(ProvidersConfigError.isInstance(err)).toBe(true);
    return [...(err as ProvidersConfigError).issues];
  }
  throw new Error('expected the config to be rejected');
}

/** Asserts an issue at exactly `path` whose message contains every `parts` entry. */
function expectIssue(config: unknown, path: string, ...parts: string[]): void {
  const issues = issuesOf(config);
  const at = issues.filter((i) => i.path === path);
  expect(at, `no issue at ${path}; got ${JSON.stringify(issues)}`).not.toHaveLength(0);
  const match = at.find((i) => parts.every((p) => i.message.includes(p)));
  expect(match, `issues at ${path}: ${JSON.stringify(at)}; wanted ${JSON.stringify(parts)}`).toBeDefined();
}

const one = (type: string, block: unknown, name = 'p1') => [{ name, type, [type]: block }];

describe('loadProvidersConfig: bad configs name the path and the bad value', () => {
  it('a kvm2 host without a bridge', () => {
    const b = kvm2Block();
    const { bridge: _, ...host } = b.hosts[0]!;
    const cfg = [
      { name: 'a', type: 'local', local: { stateDir: '/tmp/a' } },
      { name: 'b', type: 'local', local: { stateDir: '/tmp/b' } },
      { name: 'c', type: 'kvm2', kvm2: { ...b, hosts: [host] } },
    ];
    expectIssue(cfg, 'providers[2].kvm2.hosts[0].bridge', 'required');
  });

  it('a vmidRange with min above max', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), vmidRange: { min: 200000, max: 100000 } }),
      'providers[0].proxmox.vmidRange',
      'min 200000 must be <= max 100000',
    );
  });

  it('an unknown type, with the known list', () => {
    const cfg = [
      { name: 'a', type: 'local', local: { stateDir: '/tmp/a' } },
      { name: 'b', type: 'kvm3', kvm3: {} },
    ];
    expectIssue(
      cfg,
      'providers[1].type',
      'unknown type "kvm3"',
      'known: kvm, kvm2, proxmox, gcp, kubernetes, local',
    );
  });

  it('duplicate entry names', () => {
    const cfg = [
      { name: 'home', type: 'local', local: { stateDir: '/tmp/a' } },
      { name: 'home', type: 'gcp', gcp: gcpBlock() },
    ];
    expectIssue(cfg, 'providers[1].name', 'duplicate name "home"', 'providers[0]');
  });

  it('a block that does not match the type', () => {
    expectIssue(
      [{ name: 'x', type: 'kvm2', kvm: kvm2Block() }],
      'providers[0].kvm',
      'does not match type "kvm2"',
    );
    expectIssue([{ name: 'x', type: 'kvm2', kvm: kvm2Block() }], 'providers[0].kvm2', 'required');
  });

  it('an image URL that is not http(s)', () => {
    const b = kvm2Block();
    b.images['debian-13'] = { url: 'ftp://mirror/debian.qcow2' };
    expectIssue(
      one('kvm', b),
      'providers[0].kvm.images.debian-13.url',
      '"ftp://mirror/debian.qcow2"',
      'http://',
    );
  });

  it('a sha256 that is not 64 hex digits', () => {
    const b = kvm2Block();
    b.images['debian-13'] = { url: 'https://x.example/a.qcow2', sha256: 'abc123' } as never;
    expectIssue(one('kvm2', b), 'providers[0].kvm2.images.debian-13.sha256', '"abc123"', '64 hex');
  });

  it('an image key that cannot be a volume name', () => {
    const b = kvm2Block() as { images: Record<string, unknown> };
    b.images = { 'my image/1': { url: 'https://x.example/a.qcow2' } };
    expectIssue(one('kvm2', b), 'providers[0].kvm2.images["my image/1"]', '"my image/1"');
  });

  it('no machine types', () => {
    expectIssue(
      one('kvm2', { ...kvm2Block(), machineTypes: {} }),
      'providers[0].kvm2.machineTypes',
      'at least 1',
    );
  });

  it('a host address without a port', () => {
    const b = kvm2Block();
    b.hosts[0]!.address = 'nas1.home.lan';
    expectIssue(one('kvm2', b), 'providers[0].kvm2.hosts[0].address', '"nas1.home.lan"', 'host:port');
  });

  it('duplicate host names', () => {
    const b = kvm2Block();
    b.hosts.push({ ...b.hosts[0]!, address: 'nas2:22' });
    expectIssue(one('kvm2', b), 'providers[0].kvm2.hosts[1].name', 'duplicate host name "nas1"', '[0]');
  });

  it('known_hosts missing without insecureIgnoreHostKey', () => {
    const { knownHostsFile: _, ...b } = kvm2Block();
    expectIssue(one('kvm2', b), 'providers[0].kvm2.knownHostsFile', 'insecureIgnoreHostKey');
  });

  it('a domainType outside the enum', () => {
    expectIssue(
      one('kvm2', { ...kvm2Block(), domainType: 'xen' }),
      'providers[0].kvm2.domainType',
      '"xen"',
      '"kvm"',
    );
  });

  it('a string where a boolean belongs (YAML 1.2 "yes")', () => {
    const text = `
- name: home
  type: kvm2
  kvm2:
    sshKeyFile: /k
    insecureIgnoreHostKey: yes
    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}
    hosts: [{name: h1, address: "h1:22", user: virt, bridge: br0}]
`;
    expectIssue(text, 'providers[0].kvm2.insecureIgnoreHostKey', 'expected boolean', '"yes"');
  });

  it('a proxmox URL over plain http', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), url: 'http://pve1:8006' }),
      'providers[0].proxmox.url',
      '"http://pve1:8006"',
      'https://',
    );
  });

  it('a proxmox URL with credentials in it', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), url: 'https://root:pw@pve1:8006' }),
      'providers[0].proxmox.url',
      'credentials',
    );
  });

  it('a proxmox node name that cannot go into a request path', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), nodes: ['pve1', 'pve 2'] }),
      'providers[0].proxmox.nodes[1]',
      '"pve 2"',
    );
  });

  it('a proxmox isoStorage missing (no default on purpose)', () => {
    const { isoStorage: _, ...b } = proxmoxBlock();
    expectIssue(one('proxmox', b), 'providers[0].proxmox.isoStorage', 'required');
  });

  it('a proxmox storage id with a slash', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), isoStorage: 'local/iso' }),
      'providers[0].proxmox.isoStorage',
      '"local/iso"',
    );
  });

  it('a VLAN tag out of range', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), vlanTag: 4095 }),
      'providers[0].proxmox.vlanTag',
      '4094',
      '4095',
    );
  });

  it('a vmidRange below what Proxmox accepts', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), vmidRange: { min: 99, max: 1000 } }),
      'providers[0].proxmox.vmidRange.min',
      '>= 100',
      '99',
    );
  });

  it('a template VMID that is not an integer', () => {
    expectIssue(
      one('proxmox', { ...proxmoxBlock(), templates: { deb: 9000.5 } }),
      'providers[0].proxmox.templates.deb',
      '9000.5',
    );
  });

  it('a GCP project id that breaks the pattern', () => {
    expectIssue(one('gcp', { project: 'My_Project' }), 'providers[0].gcp.project', '"My_Project"');
  });

  it('a GCP label that is one of the ownership marks', () => {
    expectIssue(
      one('gcp', { ...gcpBlock(), labels: { 'proxy-operator-uid': 'x' } }),
      'providers[0].gcp.labels.proxy-operator-uid',
      'ownership mark',
    );
  });

  it('a GCP label value with upper case', () => {
    expectIssue(
      one('gcp', { ...gcpBlock(), labels: { team: 'Crawl' } }),
      'providers[0].gcp.labels.team',
      '"Crawl"',
    );
  });

  it('a GCP firewall source range that is not a CIDR', () => {
    expectIssue(
      one('gcp', { ...gcpBlock(), firewall: { enabled: true, sourceRanges: ['10.0.0.0/33'] } }),
      'providers[0].gcp.firewall.sourceRanges[0]',
      '"10.0.0.0/33"',
    );
  });

  it('a GCP firewall enabled without source ranges', () => {
    expectIssue(
      one('gcp', { ...gcpBlock(), firewall: { enabled: true } }),
      'providers[0].gcp.firewall.sourceRanges',
      'required',
    );
  });

  it('a GCP zone that is a region', () => {
    expectIssue(
      one('gcp', { ...gcpBlock(), zones: ['europe-west3'] }),
      'providers[0].gcp.zones[0]',
      '"europe-west3"',
    );
  });

  it('a GCP ipMode outside the enum', () => {
    expectIssue(one('gcp', { ...gcpBlock(), ipMode: 'both' }), 'providers[0].gcp.ipMode', '"both"');
  });

  it('kubernetes fixed namespace policy without a namespace', () => {
    expectIssue(
      one('kubernetes', { namespacePolicy: 'fixed' }),
      'providers[0].kubernetes.namespace',
      'required',
      '"fixed"',
    );
  });

  it('kubernetes request above its limit', () => {
    expectIssue(
      one('kubernetes', { resources: { requests: { memory: '1Gi' }, limits: { memory: '512Mi' } } }),
      'providers[0].kubernetes.resources.requests.memory',
      '"1Gi"',
      '"512Mi"',
    );
  });

  it('kubernetes cpu quantity that does not parse', () => {
    expectIssue(
      one('kubernetes', { resources: { requests: { cpu: 'half' } } }),
      'providers[0].kubernetes.resources.requests.cpu',
      '"half"',
    );
  });

  it('kubernetes toleration with Exists and a value', () => {
    expectIssue(
      one('kubernetes', { tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] }),
      'providers[0].kubernetes.tolerations[0].value',
      '"b"',
    );
  });

  it('local portRange upside down and a bad bind address', () => {
    const cfg = one('local', {
      stateDir: '/tmp/s',
      portRange: { min: 5000, max: 4000 },
      bindAddress: 'localhost',
    });
    expectIssue(cfg, 'providers[0].local.portRange', 'min 5000 must be <= max 4000');
    expectIssue(cfg, 'providers[0].local.bindAddress', '"localhost"');
  });

  it('local engine outside the enum', () => {
    expectIssue(
      one('local', { stateDir: '/tmp/s', engine: 'nginx' }),
      'providers[0].local.engine',
      '"nginx"',
    );
  });

  it('an unknown key with a did-you-mean', () => {
    expectIssue(
      one('kvm2', { ...kvm2Block(), sshKeyfile: '/x' }),
      'providers[0].kvm2.sshKeyfile',
      'unknown key',
      '"sshKeyFile"',
    );
  });

  it('a provider name that is not a DNS label', () => {
    expectIssue(
      [{ name: 'Home_Lab', type: 'local', local: { stateDir: '/s' } }],
      'providers[0].name',
      '"Home_Lab"',
    );
  });

  it('an entry that is not an object', () => {
    expectIssue(['kvm2'], 'providers[0]', '"kvm2"');
  });

  it('a root that is not a list', () => {
    expectIssue({ name: 'x' }, 'providers', 'expected a list');
    expectIssue('', 'providers', 'empty document');
  });

  it('a missing type names the known ones', () => {
    expectIssue([{ name: 'x', local: { stateDir: '/s' } }], 'providers[0].type', 'required', 'kvm2');
  });

  it('a name that is not a string', () => {
    expectIssue(
      [{ name: 7, type: 'local', local: { stateDir: '/s' } }],
      'providers[0].name',
      'expected string',
      '7',
    );
  });

  it('an unknown key on the entry', () => {
    expectIssue(
      [{ name: 'x', type: 'local', local: { stateDir: '/s' }, labels: {} }],
      'providers[0].labels',
      'unknown key "labels"',
      'known: name, type, module, local',
    );
  });

  it('an unknown type does not also complain about its block', () => {
    const issues = issuesOf([{ name: 'x', type: 'kvm3', kvm2: {} }]);
    expect(issues.map((i) => i.path)).toEqual(['providers[0].type']);
  });

  it('an extra key next to providers at the root', () => {
    expectIssue({ providers: [], version: 2 }, 'version', 'unknown key "version"');
  });

  it('shows an object in the wrong place by its keys, never its contents', () => {
    const issues = issuesOf(
      one('proxmox', { ...proxmoxBlock(), tokenFile: { token: 'root@pam!op=s3cr3t-value' } }),
    );
    const at = issues.find((i) => i.path === 'providers[0].proxmox.tokenFile');
    expect(at?.message).toBe('expected string, got object {token}');
    expect(JSON.stringify(issues)).not.toContain('s3cr3t');
  });

  it('collects every issue of every entry in one error, one per line', () => {
    const cfg = [
      { name: 'a', type: 'proxmox', proxmox: { ...proxmoxBlock(), vlanTag: 0 } },
      { name: 'b', type: 'local', local: { stateDir: '/tmp/b', engine: 'x' } },
    ];
    try {
      loadProvidersConfig(cfg, { source: 'providers.yaml' });
      expect.unreachable();
    } catch (err) {
      const e = err as ProvidersConfigError;
      expect(e.code).toBe('INVALID_PROVIDERS_CONFIG');
      expect(e.issues.map((i) => i.path)).toEqual([
        'providers[0].proxmox.vlanTag',
        'providers[1].local.engine',
      ]);
      expect(e.message.split('\n')).toEqual([
        'invalid providers config providers.yaml (2 issues)',
        `providers[0].proxmox.vlanTag: ${e.issues[0]!.message}`,
        `providers[1].local.engine: ${e.issues[1]!.message}`,
      ]);
    }
  });
});

describe('loadProvidersConfig: YAML and JSON text', () => {
  it('reports a YAML syntax error with its line and column', () => {
    const text = '- name: a\n  type: local\n  local: {stateDir: /tmp\n';
    try {
      loadProvidersConfig(text, { source: 'providers.yaml' });
      expect.unreachable();
    } catch (err) {
      expect(ProvidersConfigError.isInstance(err)).toBe(true);
      const e = err as ProvidersConfigError;
      expect(e.issues[0]!.path).toMatch(/^providers\.yaml:\d+:\d+$/);
      expect(e.issues[0]!.message).toMatch(/^YAML syntax error: /);
      expect(e.message).toContain('providers.yaml:');
    }
  });

  it('reports a duplicate YAML key', () => {
    const issues = issuesOf('- name: a\n  name: b\n  type: local\n');
    expect(issues[0]!.path).toBe('<input>:2:3');
    expect(issues[0]!.message).toContain('unique');
  });

  it('accepts JSON text and the {providers: [...]} form', () => {
    const json = JSON.stringify({
      providers: [{ name: 'dev', type: 'local', local: { stateDir: '/tmp/p' } }],
    });
    const [e] = loadProvidersConfig(json);
    expect(e).toMatchObject({ name: 'dev', type: 'local' });
  });

  it('accepts the text as bytes', () => {
    const bytes = new TextEncoder().encode('- {name: dev, type: local, local: {stateDir: /tmp/p}}\n');
    expect(loadProvidersConfig(bytes).map((e) => e.name)).toEqual(['dev']);
  });

  it('treats an empty block (null in YAML) as defaults', () => {
    const [e] = loadProvidersConfig('- name: cluster\n  type: kubernetes\n  kubernetes:\n');
    expect(e?.type).toBe('kubernetes');
  });
});

describe('loadProvidersConfig: good configs get their defaults', () => {
  it('fills kvm2 defaults', () => {
    const [e] = loadProvidersConfig(one('kvm2', kvm2Block(), 'kvm2-home'));
    expect(e?.type).toBe('kvm2');
    if (!isEntryOf(e, 'kvm2')) return;
    expect(e.name).toBe('kvm2-home');
    expect(e.config).toMatchObject({
      diskSizeGb: 10,
      insecureIgnoreHostKey: false,
      installGuestAgent: true,
      domainType: 'kvm',
    });
    expect(e.config.images['debian-13']).toMatchObject({ format: 'qcow2', firmware: 'uefi' });
    expect(e.config.hosts[0]).toMatchObject({ socket: '/var/run/libvirt/libvirt-sock', pool: 'default' });
  });

  it('accepts kvm with insecureIgnoreHostKey and no known_hosts', () => {
    const { knownHostsFile: _, ...b } = kvm2Block();
    const [e] = loadProvidersConfig(one('kvm', { ...b, insecureIgnoreHostKey: true }));
    expect(e?.type).toBe('kvm');
  });

  it('fills proxmox defaults', () => {
    const [e] = loadProvidersConfig(one('proxmox', proxmoxBlock()));
    if (e?.type !== 'proxmox') throw new Error('wrong type');
    expect(e.config).toMatchObject({
      insecureSkipTLSVerify: false,
      vmidRange: { min: 100000, max: 199999 },
      requestTimeoutSeconds: 30,
      installGuestAgent: true,
      maxParallelClonesPerNode: 2,
    });
  });

  it('fills gcp defaults', () => {
    const [e] = loadProvidersConfig(one('gcp', gcpBlock()));
    if (e?.type !== 'gcp') throw new Error('wrong type');
    expect(e.config).toEqual({
      project: 'my-proxies-123',
      network: 'default',
      networkTag: 'egress-proxy',
      diskSizeGb: 10,
      ipMode: 'external',
      firewall: { enabled: false, sourceRanges: [] },
      labels: {},
    });
  });

  it('fills kubernetes and local defaults', () => {
    const entries = loadProvidersConfig([
      { name: 'cluster', type: 'kubernetes' },
      { name: 'dev', type: 'local', local: { stateDir: '/var/lib/ep' } },
    ]);
    const [k, l] = entries as [ProviderEntry, ProviderEntry];
    if (!isEntryOf(k, 'kubernetes') || !isEntryOf(l, 'local')) throw new Error('wrong types');
    expect(k.config.image).toMatch(/squid/);
    expect(k.config.namespacePolicy).toBe('proxy');
    expect(k.config.allowedSourceCIDRs).toContain('10.0.0.0/8');
    expect(k.config.resources.limits?.memory).toBe('256Mi');
    expect(l.config).toMatchObject({
      stateDir: '/var/lib/ep',
      bindAddress: '127.0.0.1',
      engine: 'auto',
      portRange: { min: 40000, max: 40999 },
      allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
    });
  });

  it('does not share nested defaults between loads', () => {
    const load = () => {
      const [k, g] = loadProvidersConfig([
        { name: 'k', type: 'kubernetes' },
        { name: 'g', type: 'gcp', gcp: gcpBlock() },
      ]);
      if (!isEntryOf(k, 'kubernetes') || !isEntryOf(g, 'gcp')) throw new Error('wrong types');
      return { k: k.config, g: g.config };
    };
    const first = load();
    first.k.resources.requests!.cpu = '9';
    first.g.firewall.sourceRanges.push('10.0.0.0/8');
    const second = load();
    expect(second.k.resources.requests?.cpu).toBe('50m');
    expect(second.g.firewall.sourceRanges).toEqual([]);
  });

  it('parses text once: a JSON string document is not parsed again', () => {
    expectIssue(JSON.stringify('- name: x'), 'providers', 'expected a list', 'string');
  });

  it('does not share default objects between entries', () => {
    const [a, b] = loadProvidersConfig([
      { name: 'a', type: 'local', local: { stateDir: '/a' } },
      { name: 'b', type: 'local', local: { stateDir: '/b' } },
    ]);
    if (!isEntryOf(a, 'local') || !isEntryOf(b, 'local')) throw new Error('wrong types');
    a.config.allowedSourceCIDRs.push('10.0.0.0/8');
    expect(b.config.allowedSourceCIDRs).toEqual(['127.0.0.0/8', '::1/128']);
  });
});

describe('parseProviderConfig and the type list', () => {
  it('derives the known types from the schema map', () => {
    expect(PROVIDER_TYPES).toEqual(Object.keys(providerConfigSchemas));
    expect(PROVIDER_TYPES).toEqual(['kvm', 'kvm2', 'proxmox', 'gcp', 'kubernetes', 'local']);
  });

  it('validates one block with paths under the type', () => {
    const b = kvm2Block();
    b.hosts[0]!.bridge = 'br 0';
    try {
      parseProviderConfig('kvm2', b);
      expect.unreachable();
    } catch (err) {
      expect((err as ProvidersConfigError).issues[0]).toMatchObject({ path: 'kvm2.hosts[0].bridge' });
      expect((err as ProvidersConfigError).issues[0]?.message).toContain('"br 0"');
    }
    expect(parseProviderConfig('kvm2', kvm2Block()).diskSizeGb).toBe(10);
  });
});
