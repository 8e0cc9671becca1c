import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { FlagError } from './flag-error.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The kubeconfig a command uses: the file given, else $KUBECONFIG, ~/.kube/config or the Pod's
 * service account. client-node would otherwise fall back to http://localhost:8080 without a word,
 * and the user would see an unrelated TLS error; this says what is missing instead.
 */
export function loadKubeConfig(path?: string, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  const home = join(env.HOME || homedir(), '.kube', 'config');
  const inCluster = Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(SERVICE_ACCOUNT_TOKEN);
  const where =
    path ??
    (env.KUBECONFIG
      ? `$KUBECONFIG (${env.KUBECONFIG})`
      : existsSync(home)
        ? home
        : inCluster
          ? 'the in-cluster service account'
          : undefined);
  if (!where)
    throw new FlagError(
      `no kubeconfig: pass --kubeconfig PATH, set $KUBECONFIG, or create ${home} (this is not a Pod with a service account either)`,
    );
  try {
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
  } catch (err) {
    // The parser's message can quote the document, which may hold a token: say only where.
    throw new FlagError(
      `cannot load ${where}: not a valid kubeconfig (${err instanceof Error ? err.name : 'unknown error'})`,
    );
  }
  if (!kc.getCurrentCluster())
    throw new FlagError(`${where} names no current cluster (current-context unset or unknown)`);
  return kc;
}
