import { isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { parseProxmoxConfig } from './config.js';

const base = {
  url: 'https://pve1.example:8006',
  tokenFile: '/etc/token',
  nodes: ['pve1'],
  isoStorage: 'local',
  templates: { debian: 9000 },
  machineTypes: { small: { cores: 1, memoryMiB: 512 } },
};

const bad = (patch: Record<string, unknown>): ProviderError => {
  try {
    parseProxmoxConfig({ ...base, ...patch });
  } catch (e) {
    return e as ProviderError;
  }
  throw new Error('accepted');
};

describe('parseProxmoxConfig', () => {
  it('fills the defaults', () => {
    const c = parseProxmoxConfig(base);
    expect(c).toMatchObject({
      vmidRange: { min: 100_000, max: 199_999 },
      requestTimeoutSeconds: 30,
      installGuestAgent: true,
      insecureSkipTLSVerify: false,
      maxParallelClonesPerNode: 2,
    });
  });

  it.each([
    [{ url: 'http://pve1:8006' }, 'url'],
    [{ url: 'https://pve1:8006/api2/json?x=1' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ nodes: ['pve 1'] }, 'proxmox.nodes[0]'],
    [{ nodes: ['../etc'] }, 'proxmox.nodes[0]'],
    [{ nodes: [] }, 'nodes'],
    [{ nodes: ['a', 'a'] }, 'nodes'],
    [{ isoStorage: 'lo/cal' }, 'isoStorage'],
    [{ isoStorage: undefined }, 'isoStorage'],
    [{ vlanTag: 4095 }, 'vlanTag'],
    [{ vmidRange: { min: 99, max: 1000 } }, 'proxmox.vmidRange.min'],
    [{ vmidRange: { min: 200, max: 100 } }, 'vmidRange'],
    [{ requestTimeoutSeconds: 0 }, 'requestTimeoutSeconds'],
    [{ templates: {} }, 'templates'],
    [{ templates: { debian: 50 } }, 'templates.debian'],
    [{ machineTypes: { small: { cores: 0, memoryMiB: 512 } } }, 'machineTypes.small.cores'],
    [{ bridge: 'vmbr0; rm' }, 'bridge'],
    [{ extra: 1 }, 'proxmox.extra: unknown key "extra"'],
  ])('rejects %j naming %s', (patch, field) => {
    const e = bad(patch);
    expect(isPermanent(e)).toBe(true);
    expect(e.code).toBe('INVALID_CONFIG');
    expect(e.message).toContain(field);
  });
});

/** The `proxmox.<path>: <message>` lines of the one config error. */
const lines = (patch: Record<string, unknown>) => bad(patch).reason.split('\n').slice(1);

describe('the one config-error format', () => {
  it('names a typo with a did-you-mean, a wrong type and an out-of-range value', () => {
    expect(lines({ nodez: ['pve1'] })[0]).toMatch(
      /^proxmox\.nodez: unknown key "nodez" \(did you mean "nodes"\?\)/,
    );
    expect(lines({ requestTimeoutSeconds: 'soon' })).toEqual([
      'proxmox.requestTimeoutSeconds: expected number, got string "soon"',
    ]);
    expect(lines({ vlanTag: 4095 })).toEqual(['proxmox.vlanTag: must be <= 4094, got 4095']);
  });

  it('words each rule with the bad value', () => {
    expect(lines({ vmidRange: { min: 200000, max: 100000 } })).toEqual([
      'proxmox.vmidRange: min 200000 must be <= max 100000',
    ]);
    expect(lines({ url: 'http://pve1:8006' })).toEqual([
      'proxmox.url: "http://pve1:8006" must start with https://',
    ]);
    expect(lines({ url: 'https://root:pw@pve1:8006' })).toEqual([
      'proxmox.url: URL must not carry credentials (user:password@); use the credential file instead',
    ]);
    expect(lines({ url: 'https://pve1:8006/?x=1' })).toEqual([
      'proxmox.url: "https://pve1:8006/?x=1" must not have a query or fragment',
    ]);
    expect(lines({ nodes: ['pve1', 'pve 2'] })).toEqual([
      'proxmox.nodes[1]: "pve 2" is not a valid Proxmox node name',
    ]);
    expect(lines({ isoStorage: 'local/iso' })).toEqual([
      'proxmox.isoStorage: "local/iso" is not a valid Proxmox storage id',
    ]);
    expect(lines({ templates: { deb: 9000.5 } })).toEqual([
      'proxmox.templates.deb: must be an integer, got 9000.5',
    ]);
    expect(lines({ machineTypes: {} })).toEqual([
      'proxmox.machineTypes: needs at least 1 machine type entry, got none',
    ]);
  });

  it('shows an object in the wrong place by its keys, never its contents', () => {
    const e = bad({ tokenFile: { token: 'root@pam!op=s3cr3t-value' } });
    expect(e.reason.split('\n').slice(1)).toEqual(['proxmox.tokenFile: expected string, got object {token}']);
    expect(e.message).not.toContain('s3cr3t');
  });
});

describe('egress plan config', () => {
  const plan = { ipv4: { ranges: ['203.0.113.8/29'], gateway: '203.0.113.9' } };

  it('accepts a plan for every node and one overriding it for a node', () => {
    const c = parseProxmoxConfig({
      ...base,
      nodes: ['pve1', 'pve2'],
      egressPlans: { lab: plan, edge: plan },
      egressPlan: 'lab',
      nodeEgressPlans: { pve2: 'edge' },
    });
    expect([c.egressPlan, c.nodeEgressPlans]).toEqual(['lab', { pve2: 'edge' }]);
  });

  it('an unknown plan name is INVALID_CONFIG naming it, the configured plans and the near one', () => {
    const err = bad({ egressPlans: { lab: plan }, egressPlan: 'lba' });
    expect([isPermanent(err), err.code]).toEqual([true, 'INVALID_CONFIG']);
    expect(err.message).toContain('proxmox.egressPlan');
    expect(err.message).toContain('"lba" is not in egressPlans (configured: lab); did you mean "lab"?');
  });

  it('a node key that is not a configured node is INVALID_CONFIG naming the nodes', () => {
    const err = bad({ egressPlans: { lab: plan }, nodeEgressPlans: { pve9: 'lab' } });
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain('"pve9" is not one of nodes (pve1)');
  });

  it('a bad plan is INVALID_CONFIG at its path, naming the bad value', () => {
    const err = bad({
      egressPlans: { lab: { ipv4: { ranges: ['203.0.113.300/29'], gateway: '203.0.113.9' } } },
      egressPlan: 'lab',
    });
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain('proxmox.egressPlans.lab.ipv4.ranges[0]');
    expect(err.message).toContain('203.0.113.300/29');
  });
});
