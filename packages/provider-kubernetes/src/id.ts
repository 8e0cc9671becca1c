import { ErrorCode, permanentError } from '@egress-proxies/contract';
import { isNamespaceName, isObjectName } from './names.js';

/** Where one proxy Pod lives. */
export interface PodRef {
  namespace: string;
  name: string;
}

/** The provider ID of a Pod: `namespace/name`. */
export function formatId(ref: PodRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/**
 * Parses `namespace/name`. Both parts must be valid Kubernetes names; an empty name, an extra
 * slash or anything a path could smuggle through (`..`, `%2F`) is Permanent, because a corrupted
 * ID must stop the reconciler instead of being retried.
 */
export function parseId(id: string): PodRef {
  if (typeof id !== 'string') {
    throw permanentError(`provider ID must be a string "namespace/name", got ${typeof id}`, {
      code: ErrorCode.InvalidId,
    });
  }
  const parts = id.split('/');
  if (parts.length !== 2) {
    throw permanentError(`provider ID ${JSON.stringify(id)} is not "namespace/name"`, {
      code: ErrorCode.InvalidId,
    });
  }
  const [namespace, name] = parts as [string, string];
  if (!isNamespaceName(namespace)) {
    throw permanentError(
      `provider ID ${JSON.stringify(id)}: namespace ${JSON.stringify(namespace)} is not a valid namespace name`,
      { code: ErrorCode.InvalidId },
    );
  }
  if (name === '') {
    throw permanentError(`provider ID ${JSON.stringify(id)}: the Pod name is empty`, {
      code: ErrorCode.InvalidId,
    });
  }
  if (!isObjectName(name)) {
    throw permanentError(
      `provider ID ${JSON.stringify(id)}: ${JSON.stringify(name)} is not a valid Pod name`,
      {
        code: ErrorCode.InvalidId,
      },
    );
  }
  return { namespace, name };
}
