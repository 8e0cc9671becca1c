/**
 * The reason an aborted wait rejects with. Node fills `signal.reason` for every abort,
 * but a hand-rolled signal may not, and rejecting with `undefined` would be useless.
 */
export function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
}
