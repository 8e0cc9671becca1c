import { CheckReason, type CheckResult, ErrorCode, isAbortError } from '@egress-proxies/contract';
import { KubeApiError } from './api-error.js';
import type { Context } from './context.js';
import { classify } from './errors.js';

/** This provider's own Checker reason: the kubeconfig cannot be loaded or names no cluster. */
export const KUBE_CHECK_REASON_INVALID_CONFIG = 'InvalidKubeconfig';

/** The single Checker target. */
export const CHECK_TARGET = 'apiserver';
/** The Pod verbs the provider needs, each asked with a SelfSubjectAccessReview. */
export const REQUIRED_VERBS = ['create', 'get', 'list', 'delete'] as const;

function reasonOf(err: unknown, signal: AbortSignal | undefined): string {
  if (signal?.aborted || isAbortError(err)) return CheckReason.Timeout;
  if (KubeApiError.isInstance(err)) {
    if (err.status === 401) return CheckReason.Unauthorized;
    if (err.status === 403) return CheckReason.Forbidden;
    return CheckReason.APIError;
  }
  const e = classify(err);
  if (e.code === ErrorCode.CertificateInvalid) return CheckReason.CertificateInvalid;
  if (e.code === ErrorCode.InvalidConfig) return KUBE_CHECK_REASON_INVALID_CONFIG;
  return CheckReason.Unreachable;
}

/**
 * One result for the API server: its version, then a SelfSubjectAccessReview for each Pod verb
 * the provider uses, in the fixed namespace or, under the `proxy` policy, cluster-wide (Proxies
 * live in any namespace). Ready only when every verb is allowed; `details` carry the server
 * version, the namespace asked about and `pods.<verb>: allowed|denied` for each verb, filled in as
 * far as the check got. An expired signal gives `Timeout`, never a rejection.
 */
export async function check(ctx: Context): Promise<CheckResult[]> {
  const { signal, logger } = ctx;
  const details: Record<string, string> = {};
  const result = (ready: boolean, reason: string, message: string): CheckResult[] => {
    logger.log(1, 'check', { target: CHECK_TARGET, ready, reason });
    return [{ target: CHECK_TARGET, address: ctx.backend.server, ready, reason, message, details }];
  };
  if (signal?.aborted)
    return result(false, CheckReason.Timeout, 'the check ran out of time before it started');
  try {
    const v = await ctx.backend.version(signal);
    details.serverVersion = v.gitVersion;
    if (v.platform) details.platform = v.platform;
  } catch (err) {
    const reason = reasonOf(err, signal);
    return result(false, reason, `reading the server version failed: ${messageOf(err)}`);
  }
  const namespace = ctx.cfg.namespacePolicy === 'fixed' ? ctx.cfg.namespace : undefined;
  details.namespace = namespace ?? '(all namespaces)';
  let reviews: { verb: string; allowed: boolean; reason?: string }[];
  try {
    reviews = await Promise.all(
      REQUIRED_VERBS.map(async (verb) => {
        const r = await ctx.backend.accessReview(signal, {
          verb,
          resource: 'pods',
          ...(namespace ? { namespace } : {}),
        });
        details[`pods.${verb}`] = r.allowed ? 'allowed' : 'denied';
        return { verb, ...r };
      }),
    );
  } catch (err) {
    const reason = reasonOf(err, signal);
    return result(false, reason, `SelfSubjectAccessReview failed: ${messageOf(err)}`);
  }
  const missing = reviews.filter((r) => !r.allowed).map((r) => r.verb);
  if (missing.length > 0) {
    const where = namespace ? `in namespace ${namespace}` : 'cluster-wide';
    return result(false, CheckReason.Forbidden, `missing permission to ${missing.join(', ')} pods ${where}`);
  }
  return result(
    true,
    CheckReason.Ready,
    `API server ${details.serverVersion}; pods create, get, list, delete allowed`,
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
