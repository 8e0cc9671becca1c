/** One probe through a proxy. */
export interface ProbeRequest {
  /** The proxy's address as the provider reports it. */
  host: string;
  port: number;
  target: string;
  timeoutMs: number;
  retries: number;
}

export interface ProbeOutcome {
  ok: boolean;
  /** The address the target saw, when it echoes it. */
  egressIP?: string;
  /** Why it failed, without secrets. */
  error?: string;
  latencyMs: number;
}

export type ProbeFn = (req: ProbeRequest, signal?: AbortSignal) => Promise<ProbeOutcome>;
