import { ProviderRegistry, ProvidersConfigError } from '@egress-proxies/provider-utils';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import { describe, expect, it } from 'vitest';
import { createMemoryProvider, memoryProviderFactory } from '../src/index.js';

const registry = new ProviderRegistry().register(memoryProviderFactory);
const block = {
  hosts: [{ name: 'alpha' }],
  machineTypes: { small: { vcpus: 1, memoryMiB: 512, diskGiB: 4 } },
  images: { 'debian-12': { url: 'https://images.example.invalid/d.qcow2', sizeGiB: 2 } },
  token: 't',
};

function issues(memory: unknown) {
  try {
    loadProvidersConfig([{ name: 'mem', type: 'memory', memory }], { registry });
  } catch (err) {
    if (ProvidersConfigError.isInstance(err)) return err.issues;
    throw err;
  }
  throw new Error('expected a config error');
}

describe('the memory: block in the one config-error format', () => {
  it('fills defaults', () => {
    const [e] = loadProvidersConfig([{ name: 'mem', type: 'memory', memory: block }], { registry });
    expect(e?.config).toMatchObject({ pollIntervalMs: 50, startTimeoutMs: 15000 });
  });

  it('names a typo with did-you-mean, a wrong type and an out-of-range value', () => {
    expect(issues({ ...block, tokn: 'x' })).toContainEqual({
      path: 'providers[0].memory.tokn',
      message: expect.stringContaining('did you mean "token"?'),
    });
    expect(issues({ ...block, pollIntervalMs: 'fast' })).toEqual([
      { path: 'providers[0].memory.pollIntervalMs', message: 'expected number, got string "fast"' },
    ]);
    expect(issues({ ...block, startTimeoutMs: 5 })).toEqual([
      { path: 'providers[0].memory.startTimeoutMs', message: 'must be >= 100, got 5' },
    ]);
  });

  it('gives createMemoryProvider the same lines in a Permanent INVALID_CONFIG', () => {
    expect(() => createMemoryProvider({ ...block, startTimeoutMs: 5 }, { name: 'mem' })).toThrow(
      expect.objectContaining({
        kind: 'Permanent',
        code: 'INVALID_CONFIG',
        message:
          'mem configure: invalid memory config (1 issue)\nmemory.startTimeoutMs: must be >= 100, got 5',
      }),
    );
  });
});
