import {
  KUBERNETES_DEFAULTS,
  type KubernetesConfig,
  type KubernetesConfigInput,
  kubernetesConfigSchema,
  parseProviderBlock,
} from '@egress-proxies/contract';

export { KUBERNETES_DEFAULTS, type KubernetesConfig, type KubernetesConfigInput, kubernetesConfigSchema };

/**
 * Validates a `kubernetes:` block and fills its defaults (the schema lives in the contract so
 * the operator's config loader and this package agree). Throws the contract's one config error
 * (`invalidConfigError`): Permanent `INVALID_CONFIG`, one line per bad field.
 */
export function parseKubernetesConfig(input: unknown = {}, provider?: string): KubernetesConfig {
  return parseProviderBlock('kubernetes', input, provider);
}
