import { type ConfigSchema, ErrorCode, type ProviderError, permanentError } from '@egress-proxies/contract';
import type { ConfigIssue } from './providers-config-error.js';
import { validateWith } from './validate-with.js';

/**
 * The one config error: Permanent `INVALID_CONFIG`, naming the provider, then one line per
 * issue as `<type>.<path>: <bad value and what was expected>` (a typo gets a did-you-mean), the
 * same lines the providers-file loader prints.
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
 * Validates a provider's config block and fills its defaults, or throws the one config error
 * (`invalidConfigError`) with paths under `<type>.`: what a `create<X>Provider` calls first.
 * An absent block (`undefined` or YAML's `null`) is validated as `{}`.
 */
export function parseConfig<T>(
  schema: ConfigSchema<T>,
  input: unknown,
  options: { type: string; provider?: string | undefined },
): T {
  const r = validateWith(schema, input ?? {}, [options.type]);
  if (!r.ok) throw invalidConfigError(options.type, r.issues, options.provider);
  return r.value;
}
