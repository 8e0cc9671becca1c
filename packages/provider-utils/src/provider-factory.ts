import {
  type Checker,
  type ConfigSchema,
  defineProviderFactory,
  type Logger,
  type Provider,
  type ProviderFactory,
} from '@egress-proxies/contract';

/** What a factory hands `create<X>Provider` besides the block: the entry name and its logger. */
export interface FactoryProviderOptions {
  name: string;
  logger?: Logger;
}

/**
 * The registry entry of a provider package whose `create<X>Provider(config, options)` returns one
 * object that is the Provider and its Checker: the block arrives validated by `configSchema`, and
 * the entry's name and logger are passed on.
 */
export function providerFactory<T extends string, C>(
  type: T,
  configSchema: ConfigSchema<C>,
  create: (config: C, options: FactoryProviderOptions) => Provider & Checker,
): ProviderFactory<C, T> {
  return defineProviderFactory(type, {
    configSchema,
    create: (config, context) => {
      const provider = create(config, {
        name: context.name,
        ...(context.logger ? { logger: context.logger } : {}),
      });
      return { provider, checker: provider };
    },
  });
}
