import {
  LOCAL_DEFAULTS,
  type LocalConfig,
  type LocalConfigInput,
  localConfigSchema,
  parseProviderBlock,
} from '@egress-proxies/contract';

export { LOCAL_DEFAULTS, type LocalConfig, type LocalConfigInput, localConfigSchema };

/** The engines a proxy can run on; `auto` is resolved to one of these at create time. */
export type Engine = 'squid' | 'node';

/**
 * Validates a `local:` block and fills its defaults. Throws the contract's one config error
 * (`invalidConfigError`) naming every bad field.
 */
export function resolveConfig(input: LocalConfigInput | LocalConfig, provider?: string): LocalConfig {
  return parseProviderBlock('local', input, provider);
}
