/** What the runner hands the test it starts inside the namespace (one JSON variable). */
export interface E2eEnv {
  netns: string;
  bridge: string;
  /** The bridge's address inside the namespace; test servers listen here for the guests. */
  gateway: string;
  cidr: string;
  libvirtSocket: string;
  libvirtUri: string;
  pool: string;
  poolPath: string;
  image: { path: string; sha256: string; sizeBytes: number };
  leasesPath: string;
  /** apps/operator's built CLI. */
  operatorMain: string;
  /** Where the test writes its measurements for the report. */
  timingsOut: string;
  /** Scratch space inside the runner's directory, removed with it. */
  workDir: string;
  /** The routed upstream: the block and prefix routed to the bridge, and the echo behind the router. */
  upstream: {
    echoUrl4: string;
    echoUrl6: string;
    /** The echo server's log, `caller <address>` per request. */
    echoLog: string;
    ipv4Block: string;
    ipv4Gateway: string;
    ipv6Prefix: string;
    ipv6Gateway: string;
  };
}

export const E2E_ENV_VAR = 'EP_E2E_ENV';

/** The environment the runner described, or a clear error saying how to run the test. */
export function readE2eEnv(vars: NodeJS.ProcessEnv = process.env): E2eEnv {
  const raw = vars[E2E_ENV_VAR];
  if (!raw) {
    throw new Error(
      `${E2E_ENV_VAR} is not set: this test runs inside the network namespace its runner creates; run it with \`pnpm e2e:vm\` (or \`pnpm --filter @egress-proxies/e2e-vm test\`)`,
    );
  }
  let env: E2eEnv;
  try {
    env = JSON.parse(raw) as E2eEnv;
  } catch (e) {
    throw new Error(`${E2E_ENV_VAR} is not JSON: ${(e as Error).message}`);
  }
  for (const key of [
    'netns',
    'bridge',
    'gateway',
    'libvirtUri',
    'pool',
    'operatorMain',
    'timingsOut',
  ] as const) {
    if (typeof env[key] !== 'string' || env[key].length === 0)
      throw new Error(`${E2E_ENV_VAR}.${key} is missing`);
  }
  if (typeof env.upstream?.echoUrl4 !== 'string') throw new Error(`${E2E_ENV_VAR}.upstream is missing`);
  return env;
}
