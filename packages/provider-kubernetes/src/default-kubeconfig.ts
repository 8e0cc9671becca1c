import { join } from 'node:path';

export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Why client-node's loadFromDefault would find no kubeconfig, or undefined when it would find one.
 * It looks where client-node looks ($KUBECONFIG, $HOME/.kube/config, the in-cluster service
 * account) because, finding none, client-node silently points at http://localhost:8080 and the
 * first call fails with an unrelated TLS complaint.
 */
export function missingDefaultKubeconfig(
  env: NodeJS.ProcessEnv = process.env,
  tokenPath = SERVICE_ACCOUNT_TOKEN,
): string | undefined {
  if (env.KUBECONFIG) return undefined;
  // getBuiltinModule, not a static import: an ESM import of node:fs builds its whole namespace,
  // which loads node:stream and fs/promises with the package.
  const { accessSync, existsSync } = process.getBuiltinModule('node:fs');
  let home: string | undefined;
  try {
    if (env.HOME) accessSync(env.HOME);
    home = env.HOME || undefined;
  } catch {}
  const homeConfig = home ? join(home, '.kube', 'config') : undefined;
  if (homeConfig && existsSync(homeConfig)) return undefined;
  if (existsSync(tokenPath)) return undefined;
  return (
    `no kubeconfig: $KUBECONFIG is unset, ${homeConfig ?? '$HOME/.kube/config ($HOME unset)'} does not exist, ` +
    `and this is not a Pod with a service account (${tokenPath} is missing); set KUBECONFIG, ` +
    'pass the kubeConfig option, or run in the cluster'
  );
}
