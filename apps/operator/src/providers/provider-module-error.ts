const MARKER = Symbol.for('@egress-proxies/operator.ProviderModuleError');

/**
 * A providers-config entry's `module:` could not be used: not found, threw on import, or exports
 * no factory for the entry's type. It names the entry and the module; the other entries load.
 */
export class ProviderModuleError extends Error {
  static readonly code = 'PROVIDER_MODULE';
  readonly code = ProviderModuleError.code;
  readonly [MARKER] = true;

  constructor(
    readonly entry: { name: string; type: string; index: number },
    readonly module: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(
      `provider ${JSON.stringify(entry.name)} (providers[${entry.index}], type ${JSON.stringify(entry.type)}): module ${JSON.stringify(module)} ${problem}`,
      options,
    );
    this.name = 'ProviderModuleError';
  }

  static isInstance(value: unknown): value is ProviderModuleError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
