import { type RequestMaker, requestMaker } from './real-fixtures.js';
import { prepareRealHost, type RealHostSetup } from './real-helpers.js';
import type { RealSuiteEnv, RealSuiteOptions } from './real-suite-options.js';
import type { SuiteVitest } from './vitest-api.js';

/** A suite's environment and host, valid inside its tests. */
export interface RealSuiteHost {
  readonly env: RealSuiteEnv;
  readonly host: RealHostSetup;
  /** Makes the suite's create requests; their domains are removed after the suite. */
  readonly request: RequestMaker;
}

/**
 * Declares, in the current describe, starting the environment and preparing the host before the
 * tests (images `{name: {virtualSize, dataMiB}}` served on 127.0.0.1), and tearing both down after.
 */
export function useRealHost(
  o: RealSuiteOptions,
  v: Pick<SuiteVitest, 'beforeAll' | 'afterAll'>,
  suite: string,
  images: Parameters<typeof prepareRealHost>[1],
  opts?: Parameters<typeof prepareRealHost>[2],
): RealSuiteHost {
  const request = requestMaker(`${o.flavour.type}-${suite}`);
  let env: RealSuiteEnv | undefined;
  let host: RealHostSetup | undefined;
  v.beforeAll(async () => {
    env = await o.startEnv();
    host = await prepareRealHost(env, images, opts);
  }, 600_000);
  v.afterAll(async () => {
    await host?.cleanup(request.names);
    await env?.teardown();
  }, 120_000);
  const ready = <T>(x: T | undefined, what: string): T => {
    if (x === undefined) throw new Error(`the real ${what} is not ready: use it inside a test`);
    return x;
  };
  return {
    get env() {
      return ready(env, 'environment');
    },
    get host() {
      return ready(host, 'host');
    },
    request,
  };
}
