import { createServer, type Server } from 'node:net';
import { createStepGate, type FaultKind, type ManagedGate } from '@egress-proxies/conformance';
import { type LocalBackend, STEPS, type Step } from '../backend.js';

/** The errno each kit fault becomes: what the file system or a socket would answer. */
export const FAULT_ERRNO: Record<FaultKind, string> = {
  unreachable: 'ESTALE',
  busy: 'EBUSY',
  'not-found': 'ENOENT',
  internal: 'EIO',
  'out-of-capacity': 'ENOSPC',
};

export function errnoError(errno: string, step: string): Error {
  return Object.assign(new Error(`${errno}: injected failure at ${step}`), { code: errno });
}

export interface RecordedCall {
  step: Step;
  instance?: string;
}

const NAME_ARG: Partial<Record<keyof LocalBackend, true>> = {
  readState: true,
  writeState: true,
  removeState: true,
  writeRuntime: true,
  removeRuntime: true,
  tailLog: true,
};

/**
 * Wraps the real host backend for tests: records every call, fails the next calls of a step,
 * holds a step at a gate, answers busy or unreachable to everything, makes one port refuse
 * probes (an address that went away) and binds every free port of a range (no capacity).
 */
export class ControlledBackend {
  readonly backend: LocalBackend;
  readonly #calls: RecordedCall[] = [];
  readonly #inFlight = new Map<Step, number>();
  readonly #failNext = new Map<Step, { count: number; errno: string }>();
  readonly #failAlways = new Map<Step, string>();
  readonly #gates = new Map<Step, ManagedGate>();
  readonly #downPorts = new Set<number>();
  readonly #holders: Server[] = [];
  #mode: 'ok' | 'busy' | 'unreachable' = 'ok';

  constructor(readonly inner: LocalBackend) {
    const wrapped = {} as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const method of Object.keys(STEPS) as (keyof LocalBackend)[]) {
      const step = STEPS[method];
      const fn = inner[method] as (...args: unknown[]) => Promise<unknown>;
      wrapped[method] = async (...args: unknown[]) => {
        const signal = args[0] as AbortSignal | undefined;
        this.#calls.push({ step, ...(NAME_ARG[method] ? { instance: args[1] as string } : {}) });
        this.#inFlight.set(step, (this.#inFlight.get(step) ?? 0) + 1);
        try {
          const gate = this.#gates.get(step);
          if (gate) await gate.wait(signal);
          if (this.#mode !== 'ok') throw errnoError(FAULT_ERRNO[this.#mode], step);
          const always = this.#failAlways.get(step);
          if (always) throw errnoError(always, step);
          const next = this.#failNext.get(step);
          if (next && next.count > 0) {
            next.count -= 1;
            throw errnoError(next.errno, step);
          }
          if (method === 'probePort' && this.#downPorts.has(args[2] as number)) return false;
          return await fn.apply(inner, args);
        } finally {
          this.#inFlight.set(step, (this.#inFlight.get(step) ?? 1) - 1);
        }
      };
    }
    this.backend = wrapped as unknown as LocalBackend;
  }

  failNext(step: Step, count: number, fault: FaultKind): void {
    this.#failNext.set(step, { count, errno: FAULT_ERRNO[fault] });
  }

  failAlways(step: Step, errno: string): void {
    this.#failAlways.set(step, errno);
  }

  block(step: Step): ManagedGate {
    const gate = createStepGate();
    this.#gates.set(step, gate);
    return gate;
  }

  setMode(mode: 'ok' | 'busy' | 'unreachable'): void {
    this.#mode = mode;
  }

  setPortDown(port: number, down: boolean): void {
    if (down) this.#downPorts.add(port);
    else this.#downPorts.delete(port);
  }

  /** Binds every port of the range that is free now, on `host`, until `reset`. */
  async exhaustPorts(host: string, range: { min: number; max: number }): Promise<void> {
    for (let port = range.min; port <= range.max; port++) {
      const server = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen({ host, port, exclusive: true }, () => resolve(true));
      });
      if (bound) this.#holders.push(server);
    }
  }

  calls(): RecordedCall[] {
    return [...this.#calls];
  }

  clearCalls(): void {
    this.#calls.length = 0;
  }

  inFlight(step?: Step): number {
    if (step) return this.#inFlight.get(step) ?? 0;
    let n = 0;
    for (const v of this.#inFlight.values()) n += v;
    return n;
  }

  async reset(): Promise<void> {
    this.#failNext.clear();
    this.#failAlways.clear();
    for (const gate of this.#gates.values()) gate.release();
    this.#gates.clear();
    this.#downPorts.clear();
    this.#mode = 'ok';
    const holders = this.#holders.splice(0);
    await Promise.all(holders.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
