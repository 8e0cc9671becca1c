import type { ConfigSchema, ConfigSchemaIssue } from '@egress-proxies/contract';
import { formatPath } from './format-value.js';
import type { ConfigIssue } from './providers-config-error.js';

/** A Standard Schema issue's path as plain keys. */
export function issuePath(issue: ConfigSchemaIssue): PropertyKey[] {
  return (issue.path ?? []).map((seg) => (typeof seg === 'object' ? seg.key : seg));
}

/**
 * Runs any config schema synchronously: the value, or the issues with paths under `prefix`. A
 * schema that validates asynchronously is one issue (the providers file is checked whole, before
 * any provider is built).
 */
export function validateWith<T>(
  schema: ConfigSchema<T>,
  value: unknown,
  prefix: readonly PropertyKey[],
): { ok: true; value: T } | { ok: false; issues: ConfigIssue[] } {
  const r = schema['~standard'].validate(value);
  if (r instanceof Promise) {
    r.catch(() => {});
    return {
      ok: false,
      issues: [
        {
          path: formatPath(prefix),
          message: 'the config schema validates asynchronously; it must be synchronous',
        },
      ],
    };
  }
  if (!r.issues) return { ok: true, value: r.value };
  return {
    ok: false,
    issues: r.issues.map((i) => ({ path: formatPath([...prefix, ...issuePath(i)]), message: i.message })),
  };
}
