import { raceAbort } from '@egress-proxies/provider-utils';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FlagError } from './flag-error.js';
import { loadKubeConfig } from './kubeconfig.js';

/** A Secret as `secret` prints it and `--apply` writes it. */
export interface SecretManifest {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: 'Opaque';
  data: Record<string, string>;
}

/** Creates the Secret, or replaces it when it exists; returns what happened. */
export async function applySecret(
  secret: SecretManifest,
  kubeconfigPath: string | undefined,
  signal?: AbortSignal,
): Promise<'created' | 'updated'> {
  const kc: KubeConfig = loadKubeConfig(kubeconfigPath);
  const api = kc.makeApiClient(CoreV1Api);
  const { name, namespace } = secret.metadata;
  try {
    await raceAbort(api.createNamespacedSecret({ namespace, body: secret }), signal);
    return 'created';
  } catch (err) {
    if (statusOf(err) !== 409) throw applyError(err, namespace, name);
  }
  try {
    await raceAbort(api.replaceNamespacedSecret({ name, namespace, body: secret }), signal);
    return 'updated';
  } catch (err) {
    throw applyError(err, namespace, name);
  }
}

const statusOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'number'
    ? (err as { code: number }).code
    : undefined;

/** The API's status message only: client-node's error text includes the request body. */
function applyError(err: unknown, namespace: string, name: string): Error {
  if ((err as Error)?.name === 'AbortError') return err as Error;
  const status = statusOf(err);
  if (status === undefined)
    return new Error(`secret ${namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
  let reason = '';
  try {
    const body = (err as { body?: unknown }).body;
    const parsed =
      typeof body === 'string' ? (JSON.parse(body) as { message?: string }) : (body as { message?: string });
    reason = parsed?.message ?? '';
  } catch {}
  return new FlagError(
    `secret ${namespace}/${name}: the API server answered ${status}${reason ? `: ${reason}` : ''}`,
  );
}
