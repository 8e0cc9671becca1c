import type {
  Logger,
  ProviderBundle,
  ProviderFactory,
  ProviderFactoryContext,
  ProviderTypeSource,
} from '@egress-proxies/contract';
import { formatValue } from './config/format-value.js';
import { ProvidersConfigError } from './config/providers-config-error.js';

/**
 * One entry of a loaded providers config: its name, its type, its block (defaults filled by the
 * type's factory schema) and, when the entry names one, the module its factory comes from.
 */
export interface ProviderEntry {
  name: string;
  type: string;
  config: unknown;
  module?: string;
  /**
   * The entry's `createTimeout` in ms, when it sets one: the deadline the operator puts on this
   * provider's creates, over its `--create-timeout`.
   */
  createTimeoutMs?: number;
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

/**
 * type -> factory. The types a providers config may name are those registered here; the loader
 * checks each block with its factory's schema.
 */
export class ProviderRegistry implements ProviderTypeSource {
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
    return createChecked(factory, config, context);
  }

  /**
   * Builds every entry of a loaded providers config, in order. Every entry's type is checked
   * first, so a config naming a type this registry does not carry fails before any provider is
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

/**
 * Builds with `factory` and checks the result carries the configured name: every error and log
 * line carries it, so a factory that ignores it breaks that rule for every call.
 */
export function createChecked(
  factory: ProviderFactory<unknown>,
  config: unknown,
  context: ProviderFactoryContext,
): ProviderBundle {
  const bundle = factory.create(config, context);
  if (bundle.provider.name !== context.name) {
    throw new Error(
      `provider factory for type ${JSON.stringify(factory.type)} returned a provider named ${JSON.stringify(bundle.provider.name)}, expected the configured name ${JSON.stringify(context.name)}`,
    );
  }
  return bundle;
}
