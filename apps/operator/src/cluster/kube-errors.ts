import { ApiException } from '@kubernetes/client-node';

/** The API server's Status from an ApiException (its body is raw text), or undefined. */
export function kubeStatus(err: unknown): { code: number; reason?: string; message?: string } | undefined {
  if (!(err instanceof ApiException)) return undefined;
  let body: { reason?: string; message?: string } = {};
  if (typeof err.body === 'string') {
    try {
      body = JSON.parse(err.body) as typeof body;
    } catch {
      body = {};
    }
  } else if (err.body && typeof err.body === 'object') body = err.body as typeof body;
  return {
    code: err.code,
    ...(body.reason ? { reason: body.reason } : {}),
    ...(body.message ? { message: body.message } : {}),
  };
}

export const isKubeNotFound = (err: unknown) => kubeStatus(err)?.code === 404;
export const isKubeConflict = (err: unknown) => kubeStatus(err)?.code === 409;

/** A one-line description of a Kubernetes API failure: `409 Conflict: ...`, never the request body. */
export function describeKubeError(err: unknown): string {
  const s = kubeStatus(err);
  if (s) return `${s.code}${s.reason ? ` ${s.reason}` : ''}${s.message ? `: ${s.message}` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
