import type { CoreV1Event } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../api/group.js';
import type { EventType } from '../domain/events.js';

/** The object of this API group an Event is about. */
export interface EventSubject {
  kind: string;
  name: string;
  /** Absent for a cluster-scoped object. */
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
}

export interface EventNote {
  type: EventType;
  reason: string;
  message: string;
}

/**
 * The body of an Event's first occurrence (a repeat only raises `count` on it), created in
 * `namespace` (a cluster-scoped subject's events live in `default`).
 */
export function newEvent(
  namespace: string,
  subject: EventSubject,
  note: EventNote,
  now: Date,
  component = 'egress-proxies',
): CoreV1Event {
  const { kind, name, namespace: subjectNamespace, uid, resourceVersion } = subject;
  return {
    metadata: { generateName: `${name}.`, namespace },
    involvedObject: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind,
      name,
      ...(subjectNamespace ? { namespace: subjectNamespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    type: note.type,
    reason: note.reason,
    message: note.message.slice(0, 1024),
    source: { component },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
