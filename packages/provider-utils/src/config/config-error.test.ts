import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { boxSchema } from '../providers-file/test-registry.js';
import { invalidConfigError, parseConfig } from './config-error.js';

function thrown(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (err) {
    if (ProviderError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a ProviderError');
}

describe('parseConfig', () => {
  it('returns the block with defaults filled; an absent block is {}', () => {
    expect(
      parseConfig(boxSchema, { hosts: [{ name: 'h', address: 'h:22' }] }, { type: 'box' }),
    ).toMatchObject({
      mode: 'safe',
    });
    const err = thrown(() => parseConfig(boxSchema, null, { type: 'box' }));
    expect(err.message).toBe('configure: invalid box config (1 issue)\nbox.hosts: required');
  });

  it('throws the one config error: Permanent INVALID_CONFIG, the provider, one <type>.<path> line per issue', () => {
    const err = thrown(() =>
      parseConfig(
        boxSchema,
        { hosts: [{ name: 'h', address: 'h' }], mdoe: 'fast', ports: { min: 'a', max: 2 } },
        { type: 'box', provider: 'box-eu' },
      ),
    );
    expect(err.kind).toBe(ErrorKind.Permanent);
    expect(err.code).toBe(ErrorCode.InvalidConfig);
    expect(err.provider).toBe('box-eu');
    expect(err.operation).toBe('configure');
    expect(err.details).toEqual({ issues: 3 });
    expect(err.message.split('\n')).toEqual([
      'box-eu configure: invalid box config (3 issues)',
      'box.mdoe: unknown key "mdoe" (did you mean "mode"?) (known: hosts, ports, allowed, mode)',
      'box.hosts[0].address: "h" is not host:port (for example nas1.lan:22 or [fd00::1]:22)',
      'box.ports.min: expected number, got string "a"',
    ]);
  });

  it('invalidConfigError words a path-less issue alone', () => {
    expect(invalidConfigError('box', [{ path: '', message: 'bad' }]).reason).toBe(
      'invalid box config (1 issue)\nbad',
    );
  });
});
