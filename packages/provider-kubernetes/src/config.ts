import {
  ErrorCode,
  KUBERNETES_DEFAULTS,
  type KubernetesConfig,
  type KubernetesConfigInput,
  kubernetesConfigSchema,
  permanentError,
} from '@egress-proxies/contract';

export { KUBERNETES_DEFAULTS, type KubernetesConfig, type KubernetesConfigInput, kubernetesConfigSchema };

/**
 * Validates a `kubernetes:` block and fills its defaults (the schema lives in the contract so
 * the operator's config loader and this package agree). Throws a Permanent `INVALID_CONFIG`
 * error listing every bad field with its path.
 */
export function parseKubernetesConfig(input: unknown = {}): KubernetesConfig {
  const r = kubernetesConfigSchema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw permanentError(`invalid kubernetes config: ${issues.join('; ')}`, { code: ErrorCode.InvalidConfig });
}
