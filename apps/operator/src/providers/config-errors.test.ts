import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PROVIDERS } from './bundled.js';

// Every bundled provider, built through its factory as the operator builds it, answers a bad
// block with the same error: a Permanent ProviderError INVALID_CONFIG naming the provider, then
// `<type>.<path>: <message>` per issue, with a did-you-mean for a typo.
const kvmBlock = {
  sshKeyFile: '/k',
  insecureIgnoreHostKey: true,
  machineTypes: { s: { vcpus: 1, memoryMiB: 512 } },
  hosts: [{ name: 'h', address: 'h:22', user: 'u', bridge: 'br0' }],
};
const valid: Record<string, Record<string, unknown>> = {
  gcp: { project: 'my-proxies-project', zones: ['europe-west3-a'] },
  proxmox: {
    url: 'https://127.0.0.1:8006',
    tokenFile: '/t',
    nodes: ['pv1'],
    isoStorage: 'local',
    templates: { d: 9000 },
    machineTypes: { s: { cores: 1, memoryMiB: 512 } },
  },
  kubernetes: {},
  local: { stateDir: '/tmp/ep-config-errors' },
  kvm2: kvmBlock,
  kvm: kvmBlock,
};
// Per type: [typo, the key it means], [a field given the wrong type], [a field out of range].
const bad: Record<
  string,
  { typo: [string, string]; wrongType: [string, unknown]; range: [string, unknown] }
> = {
  gcp: { typo: ['diskSizeGB', 'diskSizeGb'], wrongType: ['diskSizeGb', 'big'], range: ['diskSizeGb', 1] },
  proxmox: {
    typo: ['nodez', 'nodes'],
    wrongType: ['requestTimeoutSeconds', 'soon'],
    range: ['vlanTag', 4095],
  },
  kubernetes: {
    typo: ['namespacePolcy', 'namespacePolicy'],
    wrongType: ['image', 7],
    range: ['allowedSourceCIDRs', []],
  },
  local: {
    typo: ['portRang', 'portRange'],
    wrongType: ['bindAddress', 42],
    range: ['portRange', { min: 0, max: 70000 }],
  },
  kvm2: {
    typo: ['diskSizeGB', 'diskSizeGb'],
    wrongType: ['installGuestAgent', 'yes'],
    range: ['diskSizeGb', 0],
  },
  kvm: {
    typo: ['diskSizeGB', 'diskSizeGb'],
    wrongType: ['installGuestAgent', 'yes'],
    range: ['diskSizeGb', 0],
  },
};

async function errorFor(type: string, block: Record<string, unknown>): Promise<ProviderError> {
  const factory = await (
    BUNDLED_PROVIDERS as Record<
      string,
      () => Promise<{ create: (c: unknown, ctx: { name: string }) => unknown }>
    >
  )[type]!();
  try {
    factory.create(block, { name: 'entry-x' });
  } catch (err) {
    if (ProviderError.isInstance(err)) return err;
    throw new Error(`${type}: not a ProviderError: ${String(err)}`);
  }
  throw new Error(`${type}: accepted ${JSON.stringify(block)}`);
}

function expectFormat(err: ProviderError, type: string, key: string): void {
  expect(err.kind).toBe(ErrorKind.Permanent);
  expect(err.code).toBe(ErrorCode.InvalidConfig);
  expect(err.provider).toBe('entry-x');
  expect(err.message).toMatch(new RegExp(`^entry-x configure: invalid ${type} config \\(\\d+ issues?\\)\\n`));
  expect(err.message).toContain(`\n${type}.${key}`);
}

describe.each(Object.keys(valid))('config errors of %s', (type) => {
  const cases = bad[type]!;
  it('a typo names the key with a did-you-mean', async () => {
    const [key, meant] = cases.typo;
    const err = await errorFor(type, { ...valid[type], [key]: 1 });
    expectFormat(err, type, key);
    expect(err.message).toContain(`unknown key "${key}" (did you mean "${meant}"?)`);
  });
  it('a wrong type names the value and what was expected', async () => {
    const [key, value] = cases.wrongType;
    const err = await errorFor(type, { ...valid[type], [key]: value });
    expectFormat(err, type, key);
    expect(err.message).toMatch(/expected|must|not a valid/);
  });
  it('an out-of-range value names the value and the bound', async () => {
    const [key, value] = cases.range;
    const err = await errorFor(type, { ...valid[type], [key]: value });
    expectFormat(err, type, key);
  });
});
