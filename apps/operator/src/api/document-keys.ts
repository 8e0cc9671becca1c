import { unknownFieldMessage } from './schema.js';

/** The top-level keys of a Proxy or ProxyPool document, as the API server knows them. */
export const DOCUMENT_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

/** The metadata keys a document in a file may set; the server-managed ones are accepted too. */
export const METADATA_KEYS = [
  'name',
  'namespace',
  'labels',
  'annotations',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'finalizers',
  'ownerReferences',
  'managedFields',
] as const;

/**
 * Reports each key of a document (and of its metadata) that no Proxy or ProxyPool has, with the
 * likely one: a typo'd `sepc:` would otherwise read as a missing spec and say nothing of the typo.
 */
export function checkDocumentKeys(
  value: Record<string, unknown>,
  issue: (path: string, message: string) => void,
): boolean {
  let ok = true;
  for (const key of Object.keys(value)) {
    if ((DOCUMENT_KEYS as readonly string[]).includes(key)) continue;
    issue(key, unknownFieldMessage(key, DOCUMENT_KEYS));
    ok = false;
  }
  const meta = value.metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    for (const key of Object.keys(meta)) {
      if ((METADATA_KEYS as readonly string[]).includes(key)) continue;
      issue(`metadata.${key}`, unknownFieldMessage(key, ['name', 'namespace', 'labels', 'annotations']));
      ok = false;
    }
  }
  return ok;
}
