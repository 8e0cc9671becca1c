import { ErrorCode, type ProviderError, permanentError } from '../errors.js';
import { type ConfigIssue, ProvidersConfigError } from './providers-config-error.js';
import { type ProviderConfigs, type ProviderType, parseProviderConfig } from './providers-file.js';

/**
 * The one config error every provider throws: Permanent `INVALID_CONFIG`, naming the provider,
 * then one line per issue as `<type>.<path>: <bad value and what was expected>` (a typo gets a
 * did-you-mean), the same lines the operator's providers-file loader prints.
 */
export function invalidConfigError(
  type: string,
  issues: readonly ConfigIssue[],
  provider?: string,
): ProviderError {
  const head = `invalid ${type} config (${issues.length} ${issues.length === 1 ? 'issue' : 'issues'})`;
  return permanentError(
    [head, ...issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))].join('\n'),
    {
      code: ErrorCode.InvalidConfig,
      operation: 'configure',
      ...(provider ? { provider } : {}),
      details: { issues: issues.length },
    },
  );
}

/**
 * Validates a bundled type's block and fills its defaults, or throws `invalidConfigError`:
 * what a provider's `create<X>Provider` calls on the config it is given.
 */
export function parseProviderBlock<T extends ProviderType>(
  type: T,
  block: unknown,
  provider?: string,
): ProviderConfigs[T] {
  try {
    return parseProviderConfig(type, block ?? {});
  } catch (err) {
    if (ProvidersConfigError.isInstance(err)) throw invalidConfigError(type, err.issues, provider);
    throw err;
  }
}
