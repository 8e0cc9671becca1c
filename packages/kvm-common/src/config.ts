import {
  ErrorCode,
  type KvmConfig,
  type KvmHost,
  type KvmImage,
  parseProviderBlock,
  permanentError,
} from '@egress-proxies/contract';

export type { KvmConfig, KvmHost, KvmImage };

/** `hosts.0.bridge` -> `hosts[0].bridge`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/**
 * Validates a `kvm:` or `kvm2:` block with the contract's schema and fills the defaults. A bad
 * block is the contract's one config error (`invalidConfigError`), one line per bad field under
 * the block name, for example `kvm2.hosts[0].bridge: ...`.
 */
export function parseKvmConfig(block: 'kvm' | 'kvm2', input: unknown, provider?: string): KvmConfig {
  return parseProviderBlock(block, input, provider);
}

/** Splits `host:port` (IPv6 in brackets); the port defaults to 22. */
export function splitAddress(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:]+)(?::(\d+))?$/.exec(address);
  if (!m)
    throw permanentError(`host address ${JSON.stringify(address)} is not host:port`, {
      code: ErrorCode.InvalidConfig,
    });
  return { host: m[1]!, port: m[2] ? Number(m[2]) : 22 };
}
