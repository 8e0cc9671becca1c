/** One problem in a providers config: where (`providers[2].kvm2.hosts[0].bridge`) and what. */
export interface ConfigIssue {
  path: string;
  message: string;
}

// Symbol.for, so a second installed copy recognises the error too; the key is the one the
// contract used before the loader moved here, so an older copy's errors are recognised as well.
const MARKER = Symbol.for('@egress-proxies/contract.ProvidersConfigError');

/**
 * The providers config failed to load: every issue found, one per line as `path: message`.
 * Messages quote the bad value; config values are names, paths and numbers, never secrets.
 */
export class ProvidersConfigError extends Error {
  static readonly code = 'INVALID_PROVIDERS_CONFIG';
  readonly [MARKER] = true;
  readonly code = ProvidersConfigError.code;
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[], options: { source?: string } = {}) {
    const head = `invalid providers config${options.source ? ` ${options.source}` : ''} (${issues.length} ${
      issues.length === 1 ? 'issue' : 'issues'
    })`;
    super([head, ...issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))].join('\n'));
    this.name = 'ProvidersConfigError';
    this.issues = Object.freeze(issues.map((i) => Object.freeze({ ...i })));
  }

  /** True for a ProvidersConfigError from any installed copy of this package. */
  static isInstance(value: unknown): value is ProvidersConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
