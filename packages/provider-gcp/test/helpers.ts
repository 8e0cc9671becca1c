import type { CreateRequest } from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { noAuth } from '../src/auth.js';
import { createGcpProvider, type GcpProvider, type GcpProviderOptions } from '../src/provider.js';
import { FakeCompute, type FakeComputeOptions } from '../src/test/fake-compute.js';

export const IMAGE = 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64';
export const ZONE = 'us-central1-a';

export interface Setup {
  fake: FakeCompute;
  provider: GcpProvider;
  lines: LogLine[];
  logger: ReturnType<typeof createLogger>;
  close(): Promise<void>;
}

/** A fake on loopback and a provider pointed at it, with a capturing logger. */
export async function setup(
  config: Record<string, unknown> = {},
  options: GcpProviderOptions = {},
  fakeOptions: FakeComputeOptions = {},
): Promise<Setup> {
  const fake = await FakeCompute.start(fakeOptions);
  const lines: LogLine[] = [];
  const logger = createLogger({ verbosity: 2, sink: (l) => lines.push(l) });
  const provider = createGcpProvider(
    { project: fake.project, ...config },
    { name: 'gcp-test', endpoint: fake.url, auth: noAuth, logger, requestTimeoutMs: 5_000, ...options },
  );
  return {
    fake,
    provider,
    lines,
    logger,
    async close() {
      await provider.close?.();
      await fake.close();
    },
  };
}

let n = 0;
export function request(overrides: Partial<CreateRequest> = {}): CreateRequest {
  n += 1;
  const hex = (n + 0x1000).toString(16).padStart(16, '0');
  return {
    name: `proxy-${hex}`,
    namespace: 'default',
    uid: `0f8fad5b-d9cb-469f-a165-${hex.slice(4)}`,
    port: 3128,
    cloudInit: '#cloud-config\n# secret-sentinel-7d1e\n',
    placement: { zone: ZONE, machineType: 'e2-small', image: IMAGE },
    ...overrides,
  };
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Record<string, unknown> & Error> {
  try {
    await p;
  } catch (err) {
    return err as Record<string, unknown> & Error;
  }
  throw new Error('expected a rejection');
}
