import { AuthenticationV1Api, AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { TokenReviewer, TokenVerdict } from '../status-page/bearer-auth.js';
import { kubeCall } from './kube-call-options.js';

/**
 * The non-resource URL a reader needs `get` on: one path for the page, its JSON and its live
 * updates, so one RBAC rule grants it (the chart renders a ClusterRole with it).
 */
export const STATUS_PAGE_URL = '/egress-proxies/status';

/**
 * A token decided by the cluster itself, as kube-rbac-proxy and controller-runtime's metrics
 * filter do: a TokenReview says who it is (a ServiceAccount token, `kubectl create token`, or
 * whatever the API server accepts: OIDC, client tokens), and a SubjectAccessReview whether that
 * user may `get` STATUS_PAGE_URL. The operator needs `create` on both reviews and nothing more;
 * there is no shared secret to hand out or rotate, and access is granted and revoked with RBAC.
 */
export function kubeTokenReviewer(kc: KubeConfig): TokenReviewer {
  const authn = kc.makeApiClient(AuthenticationV1Api);
  const authz = kc.makeApiClient(AuthorizationV1Api);
  return async (token, signal): Promise<TokenVerdict> => {
    const review = await authn.createTokenReview(
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } },
      kubeCall({ signal }),
    );
    const user = review.status?.user;
    if (!review.status?.authenticated || !user?.username) return { authenticated: false, allowed: false };
    const access = await authz.createSubjectAccessReview(
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            ...(user.groups ? { groups: user.groups } : {}),
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: { path: STATUS_PAGE_URL, verb: 'get' },
          },
        },
      },
      kubeCall({ signal }),
    );
    return { authenticated: true, user: user.username, allowed: access.status?.allowed === true };
  };
}
