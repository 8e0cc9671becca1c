import { join } from 'node:path';

/**
 * The environment for helm and kubectl against a test's cluster: kubectl's discovery cache (helm
 * keeps one too) and helm's cache, config and data homes in `dir`, where they would otherwise go
 * under the home directory; so a run leaves nothing there.
 */
export function kubeToolEnv(dir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KUBECACHEDIR: join(dir, 'kube-cache'),
    HELM_CACHE_HOME: join(dir, 'helm-cache'),
    HELM_CONFIG_HOME: join(dir, 'helm-config'),
    HELM_DATA_HOME: join(dir, 'helm-data'),
  };
}
