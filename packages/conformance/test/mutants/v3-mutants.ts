import { randomUUID } from 'node:crypto';
import {
  type CallOptions,
  type CreateRequest,
  type Instance,
  type LogFields,
  type Logger,
  notFoundError,
  ProviderError,
  permanentError,
  transientError,
} from '@egress-proxies/contract';
import { loggerOf, traceFields, withSpan } from '@egress-proxies/provider-utils';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import {
  type BackendAuth,
  MARK_NAMESPACE,
  type Mark,
  type MarkReading,
  type OpContext,
  ReferenceBackendError,
  ReferenceProvider,
} from '../../src/reference/index.js';
import { isUp } from '../../src/reference/state.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

type Placement = Parameters<ReferenceProvider['ensure']>[2];

class SpansInTheirOwnTrace extends ReferenceProvider {
  // The backend calls run outside the caller's context, as a callback-based client loses it.
  protected override call<T>(
    ctx: OpContext,
    step: string,
    fn: (auth: BackendAuth) => Promise<T>,
    name?: string,
  ): Promise<T> {
    return context.with(ROOT_CONTEXT, () => super.call(ctx, step, fn, name));
  }
}

/** Opens a span per backend call by hand; `onFailure` decides what a failed call does to it. */
function handSpans(onFailure: 'end-without-status' | 'leave-open') {
  return class extends ReferenceProvider {
    protected override async call<T>(
      ctx: OpContext,
      step: string,
      fn: (auth: BackendAuth) => Promise<T>,
      name?: string,
    ): Promise<T> {
      const span = trace.getTracer('mutant').startSpan(`reference.${step}`);
      try {
        const v = await context.with(trace.setSpan(context.active(), span), () =>
          fn({ token: this.config.token.reveal(), signal: ctx.signal }),
        );
        span.end();
        return v;
      } catch (err) {
        if (onFailure === 'end-without-status') span.end();
        ctx.log.log(1, 'reference backend call', { step, host: ctx.host, ...(name ? { name } : {}) });
        throw err;
      }
    }
  };
}

class CloudInitInASpan extends ReferenceProvider {
  protected override ensure(ctx: OpContext, req: CreateRequest, p: Placement) {
    return withSpan('reference.ensure', { 'reference.userData': req.cloudInit ?? '' }, () =>
      super.ensure(ctx, req, p),
    );
  }
}

class StaleTraceInLines extends ReferenceProvider {
  #first: ReturnType<typeof traceFields> | undefined;
  // Remembers the trace of the first call it served, for every later line.
  protected override logger(opts?: CallOptions): Logger {
    this.#first ??= traceFields();
    return loggerOf(opts).child({ provider: this.name, type: this.type, ...this.#first });
  }
}

class OutcomeLinesWithoutTrace extends ReferenceProvider {
  protected override logger(opts?: CallOptions): Logger {
    return loggerOf(opts).child({ provider: this.name, type: this.type });
  }
}

class WaitsOutACrash extends ReferenceProvider {
  // Polls until the budget whatever the state: a crashed machine is reported as a timeout.
  protected override async waitRunning(ctx: OpContext, name: string): Promise<void> {
    const deadline = Date.now() + this.config.startTimeoutMs;
    for (;;) {
      const state = await this.call(ctx, 'state', (a) => this.backend.domainState(ctx.host, name, a), name);
      if (isUp(state)) return;
      if (Date.now() >= deadline) {
        throw transientError(`domain ${name} did not run`, { code: 'TIMEOUT' });
      }
      await new Promise((resolve) => setTimeout(resolve, this.config.pollIntervalMs));
    }
  }
}

class WaitsForeverForAStart extends ReferenceProvider {
  protected override async waitRunning(ctx: OpContext, name: string): Promise<void> {
    for (;;) {
      const state = await this.call(ctx, 'state', (a) => this.backend.domainState(ctx.host, name, a), name);
      if (isUp(state)) return;
      if (state === 'shutoff' || state === 'crashed') throw transientError(`domain ${name} went ${state}`);
      await new Promise((resolve) => setTimeout(resolve, this.config.pollIntervalMs));
    }
  }
}

class UnescapedMark extends ReferenceProvider {
  protected override writeMark(mark: Mark): string {
    const created = mark.createdAt ? ` createdAt="${mark.createdAt.toISOString()}"` : '';
    const inst = mark.installation ? ` installation="${mark.installation}"` : '';
    return `<instance xmlns="${MARK_NAMESPACE}" managed="true" uid="${mark.uid}"${created}${inst}/>`;
  }
}

class IgnoresTheManagedFlag extends ReferenceProvider {
  protected override readMark(metadata: string | undefined): MarkReading {
    return super.readMark(metadata?.replace('managed="false"', 'managed="true"'));
  }
}

class DefaultsAMissingZone extends ReferenceProvider {
  protected override placement(req: CreateRequest) {
    const zone = req.placement?.zone ?? this.config.hosts[0]!.name;
    return super.placement({ ...req, placement: { ...req.placement, zone } });
  }
}

class CatalogueLookupWithIn extends ReferenceProvider {
  // `key in table` also finds the keys every object inherits (`constructor`, `toString`).
  protected override placement(req: CreateRequest) {
    const key = req.placement?.machineType;
    if (
      key !== undefined &&
      !Object.hasOwn(this.config.machineTypes, key) &&
      key in this.config.machineTypes
    ) {
      const p = super.placement({ ...req, placement: { ...req.placement, machineType: 'small' } });
      return { ...p, machineKey: key };
    }
    return super.placement(req);
  }
}

class DeletesEveryonesVolumes extends ReferenceProvider {
  protected override async removeVolumes(ctx: OpContext, name: string): Promise<void> {
    const volumes = await this.call(ctx, 'volumes', (a) => this.backend.listVolumes(ctx.host, a));
    for (const v of volumes) {
      if (v.kind === 'base') continue;
      await this.tolerateGone(() =>
        this.call(ctx, 'delete-volume', (a) => this.backend.deleteVolume(ctx.host, v.name, a), name),
      );
    }
  }
}

class MachineFirstAndForgetful extends ReferenceProvider {
  // Undefines the machine before its volumes, and removes volumes only while the machine exists:
  // a failure between the two leaves parts nothing will look for again.
  protected override async remove(ctx: OpContext, name: string): Promise<void> {
    const dom = await this.findExisting(ctx, name);
    if (!dom || !this.ourMark(this.readMark(dom.metadata))) return;
    if (dom.state !== 'shutoff') await this.stopBeforeRemove(ctx, name);
    await this.call(ctx, 'undefine', (a) => this.backend.undefineDomain(ctx.host, name, a), name);
    await this.removeVolumes(ctx, name);
  }
}

class SwallowsDeleteFailures extends ReferenceProvider {
  protected override async tolerateGone(fn: () => Promise<unknown>): Promise<void> {
    await fn().catch(() => undefined);
  }
}

class EveryPartIsAVolume extends ReferenceProvider {
  override async listSecondary(opts?: CallOptions) {
    return (await super.listSecondary(opts)).map((r) => ({ ...r, kind: 'volume' }));
  }
}

class OneIdRemovesEveryPart extends ReferenceProvider {
  override async deleteSecondary(id: string, opts?: CallOptions): Promise<void> {
    const all = await super.listSecondary(opts);
    const owner = all.find((r) => r.id === id)?.instanceName;
    for (const r of all) if (r.instanceName === owner) await super.deleteSecondary(r.id, opts);
  }
}

class BadIdsNamedVaguely extends ReferenceProvider {
  override async get(id: string, opts?: CallOptions): Promise<Instance> {
    try {
      return await super.get(id, opts);
    } catch (err) {
      if (ProviderError.isInstance(err) && err.code === 'INVALID_ID') {
        throw permanentError('malformed instance ID', {
          code: 'INVALID_ID',
          provider: this.name,
          operation: 'get',
        });
      }
      throw err;
    }
  }
}

class CallLinesWithoutTheCall extends ReferenceProvider {
  // Logs each backend call without saying which call it was or how long it took.
  protected override call<T>(
    ctx: OpContext,
    step: string,
    fn: (auth: BackendAuth) => Promise<T>,
    name?: string,
  ): Promise<T> {
    const quiet = { ...ctx, log: { ...ctx.log, log: () => {} } as Logger };
    return withSpan(`reference.${step}`, {}, async () => {
      try {
        return await super.call(quiet, step, fn, name);
      } finally {
        ctx.log.log(1, 'reference backend call', { host: ctx.host, ...traceFields() });
      }
    });
  }
}

class UnparsableCreatedAtIsNow extends ReferenceProvider {
  protected override readMark(metadata: string | undefined): MarkReading {
    const r = super.readMark(metadata);
    if (r.kind !== 'marked' || r.mark.createdAt || !metadata?.includes('createdAt=')) return r;
    return { kind: 'marked', mark: { ...r.mark, createdAt: new Date() } };
  }
}

class SecondaryIdsUnanchored extends ReferenceProvider {
  override deleteSecondary(id: string, opts?: CallOptions): Promise<void> {
    const m = /hosts\/[a-z0-9-]+\/volumes\/[A-Za-z0-9._-]+/.exec(id);
    return super.deleteSecondary(m ? m[0] : id, opts);
  }
}

class FailsOnAVanishedPart extends ReferenceProvider {
  // Treats "already gone" as a failure once it has started removing.
  protected override async tolerateGone(fn: () => Promise<unknown>): Promise<void> {
    await fn();
  }
}

class NotFoundFromDelete extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    const e = super.classify(operation, err);
    if (operation !== 'delete' || !ReferenceBackendError.isInstance(err) || !err.code.startsWith('NO_'))
      return e;
    return notFoundError(e.reason, { provider: this.name, operation });
  }
}

class ListsAPlaceholder extends ReferenceProvider {
  override async listByTag(opts?: CallOptions): Promise<Instance[]> {
    return [...(await super.listByTag(opts)), { id: '', uid: '', state: 'Running' } as Instance];
  }
}

class GenericCodeForABadRequest extends ReferenceProvider {
  protected override placement(req: CreateRequest) {
    try {
      return super.placement(req);
    } catch (err) {
      if (ProviderError.isInstance(err) && err.code === 'INVALID_REQUEST') throw permanentError(err.reason);
      throw err;
    }
  }
}

class ListSecondaryIgnoresThePolicy extends ReferenceProvider {
  #listingSecondary = 0;
  override async listSecondary(opts?: CallOptions) {
    this.#listingSecondary += 1;
    try {
      return await super.listSecondary(opts);
    } finally {
      this.#listingSecondary -= 1;
    }
  }
  protected override async listHost(ctx: OpContext) {
    if (this.#listingSecondary === 0) return super.listHost(ctx);
    return this.call(ctx, 'list', (a) => this.backend.listDomains(ctx.host, a));
  }
}

class RetiredHostNamedAlone extends ReferenceProvider {
  protected override configuredHost(host: string): void {
    if (!this.config.hosts.some((h) => h.name === host)) {
      throw permanentError(`host ${JSON.stringify(host)} is not configured`, { code: 'INVALID_ID' });
    }
  }
}

class LogsIntoTheWrongTrace extends ReferenceProvider {
  protected override createDetail(req: CreateRequest, p: Placement): LogFields {
    return { ...super.createDetail(req, p), traceId: randomUUID().replaceAll('-', '') };
  }
}

/** Mutants of the rules the kit's third version checks: tracing, logs in traces, start faults, marks, parts. */
export const V3_MUTANTS: readonly Mutant[] = [
  {
    name: 'backend spans in a trace of their own',
    breaks: "backend calls are child spans of the caller's span",
    caughtBy: ['OPS-13'],
    make: sub(SpansInTheirOwnTrace),
  },
  {
    name: 'a failed span without status ERROR',
    breaks: 'a failed span has status ERROR with the error message',
    caughtBy: ['OPS-14'],
    make: sub(handSpans('end-without-status')),
  },
  {
    name: 'spans end only on success',
    breaks: 'every span ends, on failure and abort too',
    caughtBy: ['OPS-14'],
    make: sub(handSpans('leave-open')),
  },
  {
    name: 'cloud-init in a span attribute',
    breaks: 'no secret in any span attribute or event',
    caughtBy: ['OPS-15'],
    make: sub(CloudInitInASpan),
  },
  {
    name: 'log lines carry the first call’s trace',
    breaks: "a line inside a call carries that call's trace and span IDs",
    caughtBy: ['OPS-16'],
    make: sub(StaleTraceInLines),
  },
  {
    name: 'outcome lines without trace IDs',
    breaks: 'every line inside a call carries its trace IDs',
    caughtBy: ['OPS-16'],
    make: sub(OutcomeLinesWithoutTrace),
  },
  {
    name: 'a detail line in a made-up trace',
    breaks: "a line carries the call's own trace ID",
    caughtBy: ['OPS-16'],
    make: sub(LogsIntoTheWrongTrace),
  },
  {
    name: 'waits out a crashed start',
    breaks: 'a machine that crashes while starting fails the create as what it is, not as a timeout',
    caughtBy: ['CREATE-19'],
    make: sub(WaitsOutACrash),
  },
  {
    name: 'waits forever for a start',
    breaks: 'a machine that never runs fails the create when the start budget runs out',
    caughtBy: ['CREATE-19'],
    make: sub(WaitsForeverForAStart),
  },
  {
    name: 'writes the mark unescaped',
    breaks: 'mark values with markup characters read back exactly',
    caughtBy: ['CREATE-20'],
    make: sub(UnescapedMark),
  },
  {
    name: 'ignores managed="false"',
    breaks: 'a mark with the managed flag off is not ours',
    caughtBy: ['GET-14'],
    make: sub(IgnoresTheManagedFlag),
  },
  {
    name: 'defaults a missing zone',
    breaks: 'a placement without a field create cannot default is Permanent',
    caughtBy: ['CREATE-21'],
    make: sub(DefaultsAMissingZone),
  },
  {
    name: 'catalogue lookup finds inherited keys',
    breaks: 'an unknown placement value is Permanent INVALID_PLACEMENT before any backend call',
    caughtBy: ['CREATE-04'],
    make: sub(CatalogueLookupWithIn),
  },
  {
    name: "delete removes other instances' volumes",
    breaks: "delete never touches another instance's parts",
    caughtBy: ['DELETE-03'],
    make: sub(DeletesEveryonesVolumes),
  },
  {
    name: 'removes the machine first and forgets its parts',
    breaks: 'a delete cut off halfway leaves what the next delete finds',
    caughtBy: ['DELETE-11'],
    make: sub(MachineFirstAndForgetful),
  },
  {
    name: 'a delete swallows failures',
    breaks: 'a waiting delete that resolves left nothing',
    caughtBy: ['OPS-08'],
    make: sub(SwallowsDeleteFailures),
  },
  {
    name: 'every part is a volume',
    breaks: 'listSecondary tells kinds of part apart',
    caughtBy: ['LIST-10'],
    make: sub(EveryPartIsAVolume),
  },
  {
    name: 'one secondary ID removes every part',
    breaks: 'deleteSecondary removes exactly the part its ID names',
    caughtBy: ['LIST-10'],
    make: sub(OneIdRemovesEveryPart),
  },
  {
    name: 'backend call lines that do not name the call',
    breaks: "a backend call's line names the call as its span does, with its duration",
    caughtBy: ['OPS-17'],
    make: sub(CallLinesWithoutTheCall),
  },
  {
    name: 'an unparsable createdAt reads as now',
    breaks: 'a written createdAt that does not parse reads as absent',
    caughtBy: ['GET-15'],
    make: sub(UnparsableCreatedAtIsNow),
  },
  {
    name: 'unanchored secondary IDs',
    breaks: 'a secondary ID is parsed whole',
    caughtBy: ['LIST-10'],
    make: sub(SecondaryIdsUnanchored),
  },
  {
    name: 'fails on a part someone else removed',
    breaks: 'an instance or part already gone is success, also mid-delete',
    caughtBy: ['DELETE-12'],
    make: sub(FailsOnAVanishedPart),
  },
  {
    name: 'NotFound from delete',
    breaks: 'NotFound comes from get only',
    caughtBy: ['OPS-08'],
    make: sub(NotFoundFromDelete),
  },
  {
    name: 'listByTag lists a placeholder entry',
    breaks: 'every listed instance has an ID, a uid and a declared state',
    caughtBy: ['LIST-03', 'LIST-07'],
    make: sub(ListsAPlaceholder),
  },
  {
    name: 'a bad request with the generic code',
    breaks: 'a malformed request is Permanent INVALID_REQUEST',
    caughtBy: ['CREATE-18'],
    make: sub(GenericCodeForABadRequest),
  },
  {
    name: 'listSecondary ignores the list-partial policy',
    breaks: 'listSecondary follows the declared list-partial policy',
    caughtBy: ['LIST-04'],
    make: (args) =>
      sub(ListSecondaryIgnoresThePolicy)({
        ...args,
        config: { ...args.config, listPartial: 'omit-unreachable' },
      }),
  },
  {
    name: 'a retired host named without the configured ones',
    breaks: 'an INVALID_ID for an unconfigured host names what is configured',
    caughtBy: ['GET-09'],
    make: sub(RetiredHostNamedAlone),
  },
  {
    name: 'a malformed ID error that does not name it',
    breaks: 'an INVALID_ID error names the bad ID',
    caughtBy: ['GET-08'],
    make: sub(BadIdsNamedVaguely),
  },
];
