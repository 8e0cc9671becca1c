import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { providerFactory } from './provider-factory.js';
import { cloudSchema, stubProvider } from './providers-file/test-registry.js';

describe('providerFactory', () => {
  it('passes the validated block, the entry name and its logger, and returns the provider as its checker', () => {
    const seen: unknown[] = [];
    const factory = providerFactory('cloud', cloudSchema, (config, options) => {
      seen.push(config, options.name, options.logger?.verbosity);
      return { ...stubProvider(options.name, 'cloud'), check: async () => [] };
    });
    expect(factory.type).toBe('cloud');
    expect(factory.configSchema).toBe(cloudSchema);
    const logger = createLogger({ verbosity: 2, sink: () => {} });
    const bundle = factory.create({ project: 'p', diskGb: 10 }, { name: 'c1', logger });
    expect(bundle.checker).toBe(bundle.provider);
    expect(seen).toEqual([{ project: 'p', diskGb: 10 }, 'c1', 2]);
    factory.create({ project: 'p', diskGb: 10 }, { name: 'c2' });
    expect(seen.slice(3)).toEqual([{ project: 'p', diskGb: 10 }, 'c2', undefined]);
  });
});
