import { defineProviderFactory, type Provider } from '@egress-proxies/contract';
import { cidrList, hostPort, range } from '../config/fields.js';
import { ProviderRegistry } from '../registry.js';
import * as s from '../schema/s.js';

/** A provider that is never called: these tests build configs, not machines. */
export function stubProvider(name: string, type: string): Provider {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    name,
    type,
    profile: {} as Provider['profile'],
    create: fail,
    get: fail,
    delete: fail,
    listByTag: () => Promise.resolve([]),
  };
}

/** Two made-up types with the kinds of rules real blocks have. */
export const boxSchema = s.object({
  hosts: s.array(s.object({ name: s.string().min(1), address: hostPort() }), { min: 1 }),
  ports: range(1, 65535).default(() => ({ min: 40000, max: 40999 })),
  allowed: cidrList().default(() => ['127.0.0.0/8']),
  mode: s.enum(['fast', 'safe']).default('safe'),
});
export const cloudSchema = s.object({
  project: s.string().min(1).default('demo'),
  diskGb: s.int(10, 100).default(10),
});

export const boxFactory = defineProviderFactory('box', {
  configSchema: boxSchema,
  create: (_c, ctx) => ({ provider: stubProvider(ctx.name, 'box') }),
});
export const cloudFactory = defineProviderFactory('cloud', {
  configSchema: cloudSchema,
  create: (_c, ctx) => ({ provider: stubProvider(ctx.name, 'cloud') }),
});

export const testRegistry = () => new ProviderRegistry().register(boxFactory).register(cloudFactory);
