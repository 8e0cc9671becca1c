import { ErrorCode, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { parseGcpConfig, subnetworkFor, zoneConfigured } from './config.js';

function rejects(input: unknown, path: string) {
  try {
    parseGcpConfig(input);
  } catch (err) {
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe(ErrorCode.InvalidConfig);
    expect((err as Error).message).toContain(path);
    return;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('parseGcpConfig (the contract schema, resolved)', () => {
  it('fills in the defaults', () => {
    expect(parseGcpConfig({ project: 'my-project' })).toEqual({
      project: 'my-project',
      network: 'global/networks/default',
      subnetwork: undefined,
      networkTag: 'egress-proxy',
      diskSizeGb: 10,
      serviceAccount: undefined,
      ipMode: 'external',
      firewall: { enabled: false, sourceRanges: [] },
      labels: {},
      zones: undefined,
      machineTypes: undefined,
      images: undefined,
      regions: [],
    });
  });

  it('keeps every given setting and derives the regions of the zones', () => {
    const cfg = parseGcpConfig({
      project: 'example.com:team-proj',
      network: 'projects/host-proj/global/networks/shared',
      subnetwork: 'proxies',
      networkTag: 'proxy',
      diskSizeGb: 20,
      serviceAccount: 'proxy@team-proj.iam.gserviceaccount.com',
      ipMode: 'internal',
      firewall: { enabled: true, sourceRanges: ['10.0.0.0/8', '192.168.1.7/32'] },
      labels: { team: 'net' },
      zones: ['europe-west1-b', 'europe-west1-c', 'us-east1-b'],
      machineTypes: { small: 'e2-small' },
      images: { ubuntu: 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64' },
    });
    expect(cfg.network).toBe('projects/host-proj/global/networks/shared');
    expect(cfg.ipMode).toBe('internal');
    expect(cfg.firewall).toEqual({ enabled: true, sourceRanges: ['10.0.0.0/8', '192.168.1.7/32'] });
    expect(cfg.regions).toEqual(['europe-west1', 'us-east1']);
    expect(cfg.machineTypes).toEqual({ small: 'e2-small' });
    expect(subnetworkFor(cfg, 'us-east1-b')).toBe('regions/us-east1/subnetworks/proxies');
    expect(zoneConfigured(cfg, 'us-east1-b')).toBe(true);
    expect(zoneConfigured(cfg, 'us-east1-c')).toBe(false);
    expect(zoneConfigured(parseGcpConfig({ project: 'my-project' }), 'us-east1-c')).toBe(true);
  });

  it('passes a subnetwork path through as it is', () => {
    const cfg = parseGcpConfig({
      project: 'my-project',
      subnetwork: 'projects/host-proj/regions/us-east1/subnetworks/proxies',
    });
    expect(subnetworkFor(cfg, 'us-east1-b')).toBe('projects/host-proj/regions/us-east1/subnetworks/proxies');
  });

  it.each([
    [undefined, 'gcp.project'],
    [{}, 'gcp.project'],
    [{ project: 'Bad_Project' }, 'gcp.project'],
    [{ project: 'my-project', network: 'Net' }, 'gcp.network'],
    [{ project: 'my-project', networkTag: 'UPPER' }, 'gcp.networkTag'],
    [{ project: 'my-project', diskSizeGb: 9 }, 'gcp.diskSizeGb'],
    [{ project: 'my-project', serviceAccount: 'nobody' }, 'gcp.serviceAccount'],
    [{ project: 'my-project', ipMode: 'both' }, 'gcp.ipMode'],
    [{ project: 'my-project', firewall: { enabled: true } }, 'gcp.firewall.sourceRanges'],
    [
      { project: 'my-project', firewall: { enabled: true, sourceRanges: ['10.0.0.0/33'] } },
      'gcp.firewall.sourceRanges',
    ],
    [
      { project: 'my-project', labels: { 'proxy-operator-managed': 'false' } },
      'gcp.labels.proxy-operator-managed',
    ],
    [{ project: 'my-project', labels: { team: 'UPPER' } }, 'gcp.labels.team'],
    [{ project: 'my-project', zones: ['us-central1'] }, 'gcp.zones'],
    [{ project: 'my-project', zone: 'us-central1-a' }, 'gcp.zone'],
  ])('rejects %j naming %s', (input, path) => rejects(input, path));

  it('lists every problem in one error', () => {
    try {
      parseGcpConfig({ project: 'my-project', ipMode: 'nat', diskSizeGb: 1 });
      throw new Error('accepted');
    } catch (err) {
      expect((err as Error).message).toContain('gcp.ipMode');
      expect((err as Error).message).toContain('gcp.diskSizeGb');
      expect((err as ProviderError).details.issues).toBe(2);
    }
  });
});

/** The `gcp.<path>: <message>` lines of the one config error. */
function lines(input: unknown): string[] {
  try {
    parseGcpConfig(input, 'gcp-eu');
  } catch (err) {
    expect((err as ProviderError).code).toBe(ErrorCode.InvalidConfig);
    return (err as ProviderError).reason.split('\n').slice(1);
  }
  throw new Error('expected the block to be rejected');
}

describe('the one config-error format', () => {
  const base = { project: 'my-proxies-123' };

  it('names a typo with a did-you-mean, a wrong type and an out-of-range value', () => {
    expect(lines({ ...base, diskSizeGB: 20 })[0]).toMatch(
      /^gcp\.diskSizeGB: unknown key "diskSizeGB" \(did you mean "diskSizeGb"\?\)/,
    );
    expect(lines({ ...base, diskSizeGb: 'big' })).toEqual([
      'gcp.diskSizeGb: expected number, got string "big"',
    ]);
    expect(lines({ ...base, diskSizeGb: 1 })).toEqual(['gcp.diskSizeGb: must be >= 10, got 1']);
  });

  it('words each rule with the bad value', () => {
    expect(lines({ project: 'My_Project' })[0]).toMatch(
      /^gcp\.project: "My_Project" is not a valid GCP project id/,
    );
    expect(lines({ ...base, labels: { 'proxy-operator-uid': 'x' } })).toEqual([
      'gcp.labels.proxy-operator-uid: "proxy-operator-uid" is an ownership mark set by the provider; choose another key',
    ]);
    expect(lines({ ...base, labels: { team: 'Crawl' } })).toEqual([
      'gcp.labels.team: "Crawl" is not a valid GCE label value ([a-z0-9_-], at most 63)',
    ]);
    expect(lines({ ...base, firewall: { enabled: true, sourceRanges: ['10.0.0.0/33'] } })).toEqual([
      'gcp.firewall.sourceRanges[0]: "10.0.0.0/33" is not a CIDR (address/prefix, for example 10.0.0.0/8)',
    ]);
    expect(lines({ ...base, firewall: { enabled: true } })).toEqual([
      'gcp.firewall.sourceRanges: required when enabled is true (the CIDRs allowed to reach the proxy port)',
    ]);
    expect(lines({ ...base, zones: ['europe-west3'] })).toEqual([
      'gcp.zones[0]: "europe-west3" is not a valid GCE zone (for example europe-west3-a)',
    ]);
    expect(lines({ ...base, ipMode: 'both' })).toEqual([
      'gcp.ipMode: must be one of "external", "internal", got "both"',
    ]);
  });
});
