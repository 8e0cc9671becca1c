import type { V1Pod } from '@kubernetes/client-node';

/** What the provider reads back from a Pod; the adapter converts the API object to this. */
export interface PodView {
  namespace: string;
  name: string;
  /** The Pod's own metadata.uid (not the Proxy's), used as the delete precondition. */
  podUid: string;
  labels: Readonly<Record<string, string>>;
  createdAt?: Date;
  /** Set once a delete was accepted; the Pod may linger while it terminates. */
  deletionTimestamp?: Date;
  phase?: string;
  podIP?: string;
}

export interface PodPage {
  items: PodView[];
  /** The continue token for the next page; absent on the last page. */
  continueToken?: string;
}

export interface ListPodsParams {
  /** Absent: every namespace. */
  namespace?: string;
  labelSelector: string;
  limit: number;
  continueToken?: string;
}

export interface AccessReviewParams {
  /** Absent: cluster-wide. */
  namespace?: string;
  verb: string;
  resource: string;
  group?: string;
}

export interface AccessReviewResult {
  allowed: boolean;
  reason?: string;
}

export interface ServerVersion {
  gitVersion: string;
  platform?: string;
}

/**
 * The seam: the few API calls the provider makes, signal first. The client-node adapter and any
 * test double implement it. Failures are thrown as `KubeApiError` for an API answer (a Status
 * document) and as the transport's own error otherwise; `classify` reads both.
 */
export interface KubeBackend {
  /** The API server URL, for the Checker's `address` and for logs. */
  readonly server: string;
  createPod(signal: AbortSignal | undefined, namespace: string, pod: V1Pod): Promise<PodView>;
  readPod(signal: AbortSignal | undefined, namespace: string, name: string): Promise<PodView>;
  /** Deletes only the Pod whose metadata.uid is `podUid` (a precondition, so a replacement is never hit). */
  deletePod(signal: AbortSignal | undefined, namespace: string, name: string, podUid: string): Promise<void>;
  listPods(signal: AbortSignal | undefined, params: ListPodsParams): Promise<PodPage>;
  version(signal: AbortSignal | undefined): Promise<ServerVersion>;
  accessReview(signal: AbortSignal | undefined, params: AccessReviewParams): Promise<AccessReviewResult>;
}

/** The seam's method names, which are also the step names in logs, spans and tests. */
export type KubeCall = Exclude<keyof KubeBackend, 'server'>;
export const KUBE_CALLS: readonly KubeCall[] = [
  'createPod',
  'readPod',
  'deletePod',
  'listPods',
  'version',
  'accessReview',
];
