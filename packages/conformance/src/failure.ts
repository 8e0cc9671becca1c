const MARKER = Symbol.for('@egress-proxies/conformance.ConformanceFailure');

/** A conformance case found the provider breaking the contract. */
export class ConformanceFailure extends Error {
  readonly [MARKER] = true;
  readonly code = 'CONFORMANCE_FAILURE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConformanceFailure';
  }

  static isInstance(value: unknown): value is ConformanceFailure {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Fails the case with `message` unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

/** A short, secret-free description of any thrown value for failure messages. */
export function describeError(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const e = err as { name?: unknown; kind?: unknown; code?: unknown; message?: unknown };
  const parts = [String(e.name ?? 'Error')];
  if (e.kind !== undefined) parts.push(`kind=${String(e.kind)}`);
  if (e.code !== undefined) parts.push(`code=${String(e.code)}`);
  return `${parts.join(' ')}: ${String(e.message ?? '')}`;
}

const SKIP_MARKER = Symbol.for('@egress-proxies/conformance.CaseSkipped');

/**
 * A case found, at run time, that it cannot exercise its rule on this provider (nothing to
 * check). The runner reports it as skipped with the reason, never as passed.
 */
export class CaseSkipped extends Error {
  readonly [SKIP_MARKER] = true;

  constructor(reason: string) {
    super(reason);
    this.name = 'CaseSkipped';
  }

  static isInstance(value: unknown): value is CaseSkipped {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SKIP_MARKER] === true
    );
  }
}
