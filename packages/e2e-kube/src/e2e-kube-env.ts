/** What the runner hands the test (one JSON variable): the artifacts it built. */
export interface E2eKubeEnv {
  /** OCI archives of the images the cluster imports. */
  images: { squid: string; operator: string };
  helm: string;
  /** kubectl as a command prefix (the kube-node binary's `kubectl`). */
  kubectl: string[];
  /** Where the test writes its measurements and keeps logs. */
  workDir: string;
  timingsOut: string;
}

export const E2E_KUBE_ENV_VAR = 'EP_E2E_KUBE_ENV';

/** The environment the runner described, or a clear error saying how to run the test. */
export function readE2eKubeEnv(vars: NodeJS.ProcessEnv = process.env): E2eKubeEnv {
  const raw = vars[E2E_KUBE_ENV_VAR];
  if (!raw)
    throw new Error(
      `${E2E_KUBE_ENV_VAR} is not set: this test needs the images its runner builds; run it with \`pnpm e2e:kube\` (or \`pnpm --filter @egress-proxies/e2e-kube test\`)`,
    );
  let env: E2eKubeEnv;
  try {
    env = JSON.parse(raw) as E2eKubeEnv;
  } catch (e) {
    throw new Error(`${E2E_KUBE_ENV_VAR} is not JSON: ${(e as Error).message}`);
  }
  for (const key of ['helm', 'workDir', 'timingsOut'] as const)
    if (typeof env[key] !== 'string' || env[key].length === 0)
      throw new Error(`${E2E_KUBE_ENV_VAR}.${key} is missing`);
  if (!Array.isArray(env.kubectl) || env.kubectl.length === 0)
    throw new Error(`${E2E_KUBE_ENV_VAR}.kubectl is missing`);
  if (typeof env.images?.squid !== 'string' || typeof env.images?.operator !== 'string')
    throw new Error(`${E2E_KUBE_ENV_VAR}.images needs squid and operator archives`);
  return env;
}
