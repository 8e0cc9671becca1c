import { randomUUID } from 'node:crypto';
import {
  type CallOptions,
  type Checker,
  type CreateRequest,
  instanceName,
  type Logger,
  type Placement,
  type Provider,
  ProviderError,
  type ProviderProfile,
} from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import type { BackendControl, SeedSpec } from './control.js';
import { CaseSkipped, ConformanceFailure, describeError } from './failure.js';
import type { ConformanceConfig, ConformanceFixture } from './fixture.js';
import { cloudInitWith, newSentinel } from './sentinels.js';
import type { SpanRecorder } from './span-recorder.js';

/** How long one provider call in cleanup may take before the kit gives up on it. */
const CLEANUP_CALL_MS = 5_000;

export interface RequestOverrides extends Partial<Omit<CreateRequest, 'placement'>> {
  placement?: Placement;
  /** Shorthand for `placement.zone`. */
  zone?: string;
}

/** What a case gets: the fixture, plus helpers that track everything for cleanup. */
export interface CaseContext {
  readonly caseId: string;
  readonly provider: Provider;
  readonly checker: Checker | undefined;
  readonly backend: BackendControl;
  readonly profile: ProviderProfile;
  readonly config: ConformanceConfig;
  /** The random marker inside every request's cloud-init. */
  readonly cloudInitSentinel: string;
  /** Every line logged through `logger()` or `opts()` in this case. */
  readonly lines: readonly LogLine[];
  /** The spans recorded in this case; set only for cases that declare `spans`. */
  readonly spans: SpanRecorder | undefined;
  /** A request with a unique name and UID, the harness's placement and a cloud-init with the sentinel. */
  request(overrides?: RequestOverrides): CreateRequest;
  /** A unique instance name for this case (tracked for cleanup). */
  name(): string;
  /**
   * The fixture's `freshProvider`: a second provider over the same backend (a restarted
   * process), its calls watched like the first's. The caller closes it.
   */
  freshProvider(): Promise<Provider>;
  /** `provider.create`, with the ID and name tracked for cleanup. */
  create(req: CreateRequest, opts?: CallOptions): Promise<string>;
  /** `backend.seed`, with the instance tracked for cleanup. */
  seed(spec: SeedSpec): Promise<string>;
  /** Tracks an ID for cleanup (for creates the case made with `provider.create` directly). */
  track(id: string): void;
  /** A logger writing into `lines` (and into the returned array) up to `verbosity`. */
  logger(verbosity: number): { logger: Logger; lines: LogLine[] };
  /** Call options with a V2 capturing logger and `signal`. */
  opts(signal?: AbortSignal): CallOptions;
  /** Awaits a call that must fail and returns its error, checked to be a ProviderError. */
  rejects(promise: Promise<unknown>, what: string): Promise<ProviderError>;
  /** Adds a line to the case's notes (printed by the vitest wrapper, returned by runConformance). */
  note(message: string): void;
  /** Ends the case as skipped with `reason`: it found nothing to exercise its rule on. */
  skip(reason: string): never;
  readonly notes: readonly string[];
}

export interface CaseSession {
  ctx: CaseContext;
  /** Grows whenever the case moves: a provider, checker or control call starts or settles, or a line is logged. */
  progress(): number;
  /** Hands the case the span recorder the runner installed for it. */
  useSpans(recorder: SpanRecorder): void;
  /** Deletes everything the case created or seeded; returns what it could not delete. */
  cleanup(): Promise<string[]>;
}

export function createCaseSession(caseId: string, fixture: ConformanceFixture): CaseSession {
  let moves = 0;
  const moved = () => {
    moves += 1;
  };
  const provider = watchCalls(fixture.provider, moved);
  const checker = fixture.checker && watchCalls(fixture.checker, moved);
  const backend = watchCalls(fixture.backend, moved);
  const { profile, config } = fixture;
  const sentinel = newSentinel('cloud-init-sentinel');
  const lines: LogLine[] = [];
  const notes: string[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  const seeded = new Map<string, string | undefined>();
  let counter = 0;
  let spans: SpanRecorder | undefined;

  const logger = (verbosity: number) => {
    const own: LogLine[] = [];
    const l = createLogger({
      verbosity,
      sink: (line) => {
        moved();
        own.push(line);
        lines.push(line);
      },
    });
    return { logger: l, lines: own };
  };
  const v2 = logger(2).logger;

  const name = () => {
    counter += 1;
    const n = instanceName('conformance', `${caseId}-${counter}-${randomUUID()}`);
    names.add(n);
    return n;
  };

  const ctx: CaseContext = {
    caseId,
    provider,
    checker,
    backend,
    profile,
    config,
    cloudInitSentinel: sentinel,
    lines,
    get spans() {
      return spans;
    },
    notes,
    name,
    async freshProvider() {
      if (!fixture.freshProvider) throw new CaseSkipped('the fixture has no freshProvider');
      return watchCalls(await fixture.freshProvider(), moved);
    },
    request(overrides = {}) {
      const { zone, placement, ...rest } = overrides;
      const base: Placement = { ...config.placement, ...placement };
      if (zone !== undefined) base.zone = zone;
      const req: CreateRequest = {
        name: rest.name ?? name(),
        namespace: 'conformance',
        proxyName: `${caseId.toLowerCase()}-${counter}`,
        uid: randomUUID(),
        port: 3128,
        cloudInit: cloudInitWith(sentinel),
        installation: 'conformance-installation',
        ...rest,
        placement: base,
      };
      names.add(req.name);
      return req;
    },
    async create(req, opts) {
      names.add(req.name);
      const id = await provider.create(req, opts ?? { logger: v2 });
      ids.add(id);
      return id;
    },
    async seed(spec) {
      names.add(spec.name);
      seeded.set(spec.name, spec.zone);
      return await backend.seed(spec);
    },
    track(id) {
      ids.add(id);
    },
    logger,
    opts(signal) {
      return signal ? { logger: v2, signal } : { logger: v2 };
    },
    async rejects(promise, what) {
      let value: unknown;
      try {
        value = await promise;
      } catch (err) {
        if (!ProviderError.isInstance(err)) {
          throw new ConformanceFailure(`${what}: rejected with a non-ProviderError (${describeError(err)})`, {
            cause: err,
          });
        }
        return err;
      }
      throw new ConformanceFailure(
        `${what}: expected a rejection, got ${JSON.stringify(value) ?? 'undefined'}`,
      );
    },
    note(message) {
      notes.push(message);
    },
    skip(reason) {
      throw new CaseSkipped(reason);
    },
  };

  async function cleanup(): Promise<string[]> {
    const leftovers: string[] = [];
    const bounded = async <T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<void> => {
      const signal = AbortSignal.timeout(CLEANUP_CALL_MS);
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          fn(signal),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('did not return')), CLEANUP_CALL_MS + 500);
          }),
        ]);
      } catch (err) {
        leftovers.push(`${what}: ${describeError(err)}`);
      } finally {
        clearTimeout(timer);
      }
    };
    await bounded('reset the backend', async () => backend.reset());
    // Everything the backend holds under one of our names, plus every ID a create returned.
    let views: Awaited<ReturnType<BackendControl['instances']>> = [];
    await bounded('list backend instances', async () => {
      views = await backend.instances();
    });
    // Only what still exists is deleted: the backend view is the truth, and a case may have closed the provider.
    const existing = new Set(
      views.filter((v) => (names.has(v.name) || ids.has(v.id)) && v.marked).map((v) => v.id),
    );
    for (const id of existing) await bounded(`delete ${id}`, (signal) => provider.delete(id, { signal }));
    // Seeded instances a provider rightly refused to touch go out of band.
    for (const v of views) {
      if (names.has(v.name) && !v.marked) {
        await bounded(`remove unmarked ${v.name}`, async () => backend.removeInstance(v.name, v.zone));
      }
    }
    for (const [n, zone] of seeded) {
      await bounded(`remove seeded ${n}`, async () => {
        const now = await backend.instances();
        if (now.some((v) => v.name === n)) await backend.removeInstance(n, zone);
      });
    }
    await bounded('check leftovers', async () => {
      const now = await backend.instances();
      for (const v of now) if (names.has(v.name)) leftovers.push(`instance ${v.name} still exists`);
      // Resources a failing case left behind go out of band; DELETE-03 is the case that judges them.
      const owners = new Map<string, string | undefined>();
      for (const r of await backend.resources()) if (names.has(r.instance)) owners.set(r.instance, r.zone);
      for (const [n, zone] of owners) await backend.removeResources(n, zone);
    });
    return leftovers;
  }

  return {
    ctx,
    progress: () => moves,
    cleanup,
    useSpans(recorder) {
      spans = recorder;
    },
  };
}

/** `target` with every method call reported to `moved` when it starts and when it settles. */
function watchCalls<T extends object>(target: T, moved: () => void): T {
  return new Proxy(target, {
    get(t, key) {
      const value = Reflect.get(t, key, t);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        moved();
        const out = Reflect.apply(value, t, args);
        if (out instanceof Promise) out.then(moved, moved);
        return out;
      };
    },
  });
}
