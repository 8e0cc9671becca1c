/**
 * What a provider's config schema must offer: the Standard Schema v1 shape
 * (https://standardschema.dev), so a zod, valibot or arktype schema can be handed over as is
 * and the contract depends on none of them. Validation must be synchronous: the providers file
 * is checked as a whole before any provider is built.
 */
export interface ConfigSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => ConfigSchemaResult<Output> | Promise<ConfigSchemaResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

export type ConfigSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly ConfigSchemaIssue[] };

export interface ConfigSchemaIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** The output type of a config schema. */
export type ConfigOf<S> = S extends ConfigSchema<infer O> ? O : never;

export function isConfigSchema(value: unknown): value is ConfigSchema {
  const std = (value as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard'];
  return typeof std?.validate === 'function';
}
