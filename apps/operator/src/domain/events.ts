/** The kind of a Kubernetes-style event: every store records events of these two. */
export type EventType = 'Normal' | 'Warning';

export interface ProxyEvent {
  type: EventType;
  reason: string;
  /** Never contains cloud-init or credentials. */
  message: string;
}
