import { formatValue } from './config/format-value.js';
import { ProvidersConfigError } from './config/providers-config-error.js';
import type { ProviderConfigs, ProviderEntry, ProviderType } from './config/providers-file.js';
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
export interface ProviderFactory<Config = unknown> {
  readonly type: string;
  /** Builds the provider from a validated block. Must not touch the backend (no dial, no request). */
  create(config: Config, context: ProviderFactoryContext): ProviderBundle;
}

/**
 * A factory typed by its config block: `defineProviderFactory('kvm2', (config, ctx) => ...)`
 * receives a `Kvm2Config` with defaults filled.
 */
export function defineProviderFactory<T extends ProviderType>(
  type: T,
  create: (config: ProviderConfigs[T], context: ProviderFactoryContext) => ProviderBundle,
): ProviderFactory<ProviderConfigs[T]> & { readonly type: T } {
  return { type, create };
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

  register<C>(factory: ProviderFactory<C>): this {
    if (this.#factories.has(factory.type)) {
      throw new Error(`provider type ${JSON.stringify(factory.type)} is already registered`);
    }
    this.#factories.set(factory.type, factory as ProviderFactory<unknown>);
    return this;
  }

  has(type: string): boolean {
    return this.#factories.has(type);
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
