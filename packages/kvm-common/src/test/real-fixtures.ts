import { randomUUID } from 'node:crypto';
import { type CreateRequest, instanceName, type ProviderError } from '@egress-proxies/contract';
import { BACKEND_METHODS, type BackendMethod, type Dialer, type KvmBackend } from '../backend.js';

const HOOKED = new Set<string>(BACKEND_METHODS);

export interface HookedDialer extends Dialer {
  /** Dials made so far. */
  readonly dials: number;
  /** Seam calls made so far, by method, over every connection. */
  readonly calls: Map<BackendMethod, number>;
  /** Every seam call in order, with its arguments. */
  readonly trail: { method: BackendMethod; args: readonly unknown[] }[];
}

/**
 * Wraps a dialer: counts dials and seam calls, and runs `before(method)` ahead of every seam call
 * on every connection (where a test cuts, aborts or restarts something between two steps).
 */
export function hookedDialer(
  inner: Dialer,
  before: (method: BackendMethod, args: readonly unknown[]) => Promise<void> | void = () => {},
): HookedDialer {
  const calls = new Map<BackendMethod, number>();
  const trail: HookedDialer['trail'] = [];
  let dials = 0;
  return {
    get dials() {
      return dials;
    },
    calls,
    trail,
    async dial(host, o) {
      dials += 1;
      const b = await inner.dial(host, o);
      return new Proxy(b, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          const fn = (value as (...a: unknown[]) => unknown).bind(target);
          if (typeof prop !== 'string' || !HOOKED.has(prop)) return fn;
          const method = prop as BackendMethod;
          return async (...args: unknown[]) => {
            calls.set(method, (calls.get(method) ?? 0) + 1);
            trail.push({ method, args });
            await before(method, args);
            return fn(...args);
          };
        },
      }) as KvmBackend;
    },
  };
}

/** Names of the requests a suite made, for scoping checks on the shared host and for cleanup. */
export interface RequestMaker {
  (label: string, image?: string): CreateRequest;
  readonly names: Set<string>;
}

/** Create requests in the namespace `<type>-<suite>`, each with a fresh name and UID. */
export function requestMaker(namespace: string): RequestMaker {
  const names = new Set<string>();
  const make = (label: string, image = 'tiny'): CreateRequest => {
    const name = instanceName(namespace, `${label}-${randomUUID().slice(0, 8)}`);
    names.add(name);
    return {
      name,
      namespace,
      uid: randomUUID(),
      port: 3128,
      cloudInit: '#cloud-config\nruncmd: [echo integration-sentinel]\n',
      placement: { zone: 'local', machineType: 'small', image },
      installation: `${namespace}-install`,
    };
  };
  return Object.assign(make, { names });
}

/** The rejection of `p` as a ProviderError, or undefined when it fulfils. */
export function failure(p: Promise<unknown>): Promise<ProviderError | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => e as ProviderError,
  );
}
