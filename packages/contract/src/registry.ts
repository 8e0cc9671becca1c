import type { ConfigSchema } from './config/config-schema.js';
import { formatValue } from './config/format-value.js';
import { ProvidersConfigError } from './config/providers-config-error.js';
import {
  isProviderType,
  type ProviderConfigs,
  type ProviderEntry,
  type ProviderType,
  providerConfigSchemas,
} from './config/providers-file.js';
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
   * Checks a config block and fills its defaults (any Standard Schema: zod, valibot, ...). The
   * providers-file loader validates each entry's block with it; absent for a bundled type, whose
   * schema the loader knows, and for a factory that takes its block as written.
   */
  readonly configSchema?: ConfigSchema<Config> | undefined;
  /** Builds the provider from a validated block. Must not touch the backend (no dial, no request). */
  create(config: Config, context: ProviderFactoryContext): ProviderBundle;
}

type CreateFn<C> = (config: C, context: ProviderFactoryContext) => ProviderBundle;

/**
 * A factory typed by its config block. For a bundled type,
 * `defineProviderFactory('kvm2', (config, ctx) => ...)` receives a `Kvm2Config` with defaults
 * filled. Any other type name brings its schema:
 * `defineProviderFactory('hetzner', { configSchema, create })` receives the schema's output.
 */
export function defineProviderFactory<T extends ProviderType>(
  type: T,
  create: CreateFn<ProviderConfigs[T]>,
): ProviderFactory<ProviderConfigs[T], T>;
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
    throw new TypeError(`defineProviderFactory: type must be a non-empty string, got ${formatValue(type)}`);
  }
  if (typeof definition === 'function') {
    // A bundled type's factory carries that type's schema, so it validates under `module:` too.
    return isProviderType(type)
      ? { type, configSchema: providerConfigSchemas[type] as ConfigSchema<never>, create: definition }
      : { type, create: definition };
  }
  return { type, configSchema: definition.configSchema, create: definition.create };
}

/** True for anything shaped like a provider factory (what a provider module must export). */
export function isProviderFactory(value: unknown): value is ProviderFactory {
  const f = value as { type?: unknown; create?: unknown } | null | undefined;
  return typeof f?.type === 'string' && typeof f.create === 'function';
}

/** Shared by every provider `createAll` builds. */
export interface ProviderRegistryContext {
  /** Each provider gets a child with `provider: <name>`. */
  logger?: Logger;
}

/** One built entry, in config order. */
export interface CreatedProvider extends ProviderBundle {
  entry: ProviderEntry;
}

/** type -> factory. The operator fills it with the provider packages it bundles. */
export class ProviderRegistry {
  readonly #factories = new Map<string, ProviderFactory<unknown>>();

  register<C>(factory: ProviderFactory<C, string>): this {
    if (this.#factories.has(factory.type)) {
      throw new Error(`provider type ${JSON.stringify(factory.type)} is already registered`);
    }
    this.#factories.set(factory.type, factory as ProviderFactory<unknown>);
    return this;
  }

  has(type: string): boolean {
    return this.#factories.has(type);
  }

  /** The factory registered for `type`, if any. */
  factory(type: string): ProviderFactory<unknown> | undefined {
    return this.#factories.get(type);
  }

  types(): string[] {
    return [...this.#factories.keys()];
  }

  create(type: string, config: unknown, context: ProviderFactoryContext): ProviderBundle {
    const factory = this.#factories.get(type);
    if (!factory) {
      throw new Error(
        `provider ${JSON.stringify(context.name)}: no factory registered for type ${JSON.stringify(type)} (registered: ${this.types().join(', ') || 'none'})`,
      );
    }
    const bundle = factory.create(config, context);
    // The configured name is what every error and log line carries; a factory that ignores it
    // breaks that rule for every call, so it is caught here once.
    if (bundle.provider.name !== context.name) {
      throw new Error(
        `provider factory for type ${JSON.stringify(type)} returned a provider named ${JSON.stringify(bundle.provider.name)}, expected the configured name ${JSON.stringify(context.name)}`,
      );
    }
    return bundle;
  }

  /**
   * Builds every entry of a loaded providers config, in order. Every entry's type is checked
   * first, so a config naming a type this build does not bundle fails before any provider is
   * built, with a `ProvidersConfigError` naming each such entry.
   */
  createAll(entries: readonly ProviderEntry[], context: ProviderRegistryContext = {}): CreatedProvider[] {
    const missing = entries.flatMap((e, i) =>
      this.has(e.type)
        ? []
        : [
            {
              path: `providers[${i}].type`,
              message: `type ${formatValue(e.type)} of provider ${formatValue(e.name)} has no registered factory (registered: ${this.types().join(', ') || 'none'})`,
            },
          ],
    );
    if (missing.length > 0) throw new ProvidersConfigError(missing);
    return entries.map((entry) => {
      const bundle = this.create(entry.type, entry.config, {
        name: entry.name,
        ...(context.logger ? { logger: context.logger.child({ provider: entry.name }) } : {}),
      });
      return { entry, ...bundle };
    });
  }
}
