import type { ConfigSchema } from './config-schema.js';
import type { Logger } from './logger.js';
import type { Checker, Provider } from './provider.js';

/** What a provider factory is given besides its config block. */
export interface ProviderFactoryContext {
  /** The configured entry name, carried into every error and log line. */
  name: string;
  logger?: Logger;
}

/** What a factory returns: the provider and, when it has one, its health checker. */
export interface ProviderBundle {
  provider: Provider;
  checker?: Checker;
}

/** A provider package's factory, registered under its config `type`. */
export interface ProviderFactory<Config = unknown, Type extends string = string> {
  readonly type: Type;
  /**
   * Checks a config block and fills its defaults (a Standard Schema: the provider-utils schema
   * module gives the one error format; zod, valibot and others work with their own messages).
   * The providers-file loader validates each entry's block with it; a factory without one takes
   * its block as written.
   */
  readonly configSchema?: ConfigSchema<Config> | undefined;
  /** Builds the provider from a validated block. Must not touch the backend (no dial, no request). */
  create(config: Config, context: ProviderFactoryContext): ProviderBundle;
}

type CreateFn<C> = (config: C, context: ProviderFactoryContext) => ProviderBundle;

/**
 * A factory typed by its config schema: `defineProviderFactory('kvm2', { configSchema, create })`
 * hands `create` the schema's output. Without a schema, `create` takes the block as written.
 */
export function defineProviderFactory<T extends string, C>(
  type: T,
  definition: { configSchema: ConfigSchema<C>; create: CreateFn<C> },
): ProviderFactory<C, T>;
export function defineProviderFactory<T extends string>(
  type: T,
  create: CreateFn<unknown>,
): ProviderFactory<unknown, T>;
export function defineProviderFactory(
  type: string,
  // biome-ignore lint/suspicious/noExplicitAny: the overloads above carry the types
  definition: CreateFn<any> | { configSchema: ConfigSchema<any>; create: CreateFn<any> },
  // biome-ignore lint/suspicious/noExplicitAny: as above
): ProviderFactory<any> {
  if (typeof type !== 'string' || type === '') {
    throw new TypeError(
      `defineProviderFactory: type must be a non-empty string, got ${JSON.stringify(type)}`,
    );
  }
  if (typeof definition === 'function') return { type, create: definition };
  return { type, configSchema: definition.configSchema, create: definition.create };
}

/** True for anything shaped like a provider factory (what a provider module must export). */
export function isProviderFactory(value: unknown): value is ProviderFactory {
  const f = value as { type?: unknown; create?: unknown } | null | undefined;
  return typeof f?.type === 'string' && typeof f.create === 'function';
}

/**
 * Where a config loader learns the provider types and their factories (a `ProviderRegistry`
 * is one; the operator's loader, which imports bundled packages on use, is another).
 */
export interface ProviderTypeSource {
  types(): readonly string[];
  factory(type: string): Pick<ProviderFactory, 'configSchema'> | undefined;
}
