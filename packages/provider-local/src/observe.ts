import type { Logger } from '@egress-proxies/contract';
import { traceFields, withSpan } from '@egress-proxies/provider-utils';
import { type LocalBackend, STEPS } from './backend.js';
import { classify } from './errors.js';

type Method = keyof LocalBackend;

/** The identifiers worth a log field, per method's arguments (never file contents). */
function fieldsOf(method: Method, args: unknown[]): Record<string, unknown> {
  switch (method) {
    case 'readState':
    case 'writeState':
    case 'removeState':
    case 'writeRuntime':
    case 'removeRuntime':
      return { name: args[1] };
    case 'spawn':
      return { command: (args[1] as { command: string }).command };
    case 'inspect':
      return { pid: args[1] };
    case 'kill':
      return { pid: args[1], signal: args[2] };
    case 'probePort':
    case 'portFree':
      return { host: args[1], port: args[2] };
    case 'engineVersion':
      return { engine: args[1] };
    case 'findProcesses':
      return { argPrefix: args[1] };
    default:
      return {};
  }
}

/**
 * The span and log decorator, applied once where an operation gets its backend: every call
 * becomes a `local.<step>` child span of the caller's span and one line with its duration (V1,
 * or V2 for the calls of a polling wait, whose count depends on timing), and a failure is
 * classified at the source (errno -> ProviderError).
 */
export function observe(backend: LocalBackend, logger: Logger, callLevel: 1 | 2 = 1): LocalBackend {
  const wrapped = {} as Record<Method, (...args: unknown[]) => Promise<unknown>>;
  for (const method of Object.keys(STEPS) as Method[]) {
    const step = STEPS[method];
    const fn = backend[method] as (...args: unknown[]) => Promise<unknown>;
    wrapped[method] = (...args: unknown[]) => {
      const fields = fieldsOf(method, args);
      const attrs: Record<string, string | number> = { 'local.step': step };
      for (const [k, v] of Object.entries(fields)) {
        if (typeof v === 'string' || typeof v === 'number') attrs[`local.${k}`] = v;
      }
      return withSpan(`local.${step}`, attrs, async () => {
        const started = performance.now();
        try {
          const result = await fn.apply(backend, args);
          logger.log(callLevel, 'local call', {
            step,
            ...fields,
            durationMs: Math.round(performance.now() - started),
            ...traceFields(),
          });
          return result;
        } catch (err) {
          const classified = classify(step, err);
          logger.log(callLevel, 'local call failed', {
            step,
            ...fields,
            durationMs: Math.round(performance.now() - started),
            error: classified instanceof Error ? classified.message : String(classified),
            ...traceFields(),
          });
          throw classified;
        }
      });
    };
  }
  return wrapped as unknown as LocalBackend;
}
