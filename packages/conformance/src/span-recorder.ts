import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

/** One span as the kit saw it; `ended` and `status` change until the span ends. */
export interface RecordedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** The span it was started under; undefined for a root span. */
  readonly parentSpanId: string | undefined;
  readonly attributes: Readonly<Attributes>;
  readonly events: readonly { name: string; attributes: Readonly<Attributes> }[];
  readonly status: Readonly<SpanStatus>;
  readonly ended: boolean;
}

interface MutableSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
  status: SpanStatus;
  ended: boolean;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

class RecordingSpan implements Span {
  readonly #ctx: SpanContext;
  constructor(readonly data: MutableSpan) {
    this.#ctx = { traceId: data.traceId, spanId: data.spanId, traceFlags: 1 };
  }
  spanContext(): SpanContext {
    return this.#ctx;
  }
  setAttribute(key: string, value: unknown): this {
    if (!this.data.ended) this.data.attributes[key] = value as Attributes[string];
    return this;
  }
  setAttributes(attributes: Attributes): this {
    if (!this.data.ended) Object.assign(this.data.attributes, attributes);
    return this;
  }
  addEvent(name: string, attributes?: unknown): this {
    const attrs =
      typeof attributes === 'object' && attributes !== null && !(attributes instanceof Date)
        ? { ...(attributes as Attributes) }
        : {};
    if (!this.data.ended) this.data.events.push({ name, attributes: attrs });
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.data.ended) this.data.status = { ...status };
    return this;
  }
  updateName(name: string): this {
    if (!this.data.ended) this.data.name = name;
    return this;
  }
  end(): void {
    this.data.ended = true;
  }
  isRecording(): boolean {
    return !this.data.ended;
  }
  recordException(exception: unknown): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (typeof exception === 'object' && exception !== null) {
      const e = exception as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown };
      for (const [k, v] of Object.entries({
        type: e.name ?? e.code,
        message: e.message,
        stacktrace: e.stack,
      })) {
        if (v !== undefined) attributes[`exception.${k}`] = String(v);
      }
    }
    this.addEvent('exception', attributes);
  }
}

/** Records every span started while it is the global tracer provider. */
class RecordingTracerProvider implements TracerProvider {
  spans: MutableSpan[] = [];

  getTracer(): Tracer {
    const start = (name: string, options: SpanOptions = {}, ctx: Context = context.active()) => {
      const parent = options.root ? undefined : trace.getSpanContext(ctx);
      const data: MutableSpan = {
        name,
        traceId: parent?.traceId ?? hex(16),
        spanId: hex(8),
        parentSpanId: parent?.spanId,
        attributes: { ...options.attributes },
        events: [],
        status: { code: SpanStatusCode.UNSET },
        ended: false,
      };
      this.spans.push(data);
      return new RecordingSpan(data);
    };
    return {
      startSpan: start,
      startActiveSpan: ((name: string, ...rest: unknown[]) => {
        const fn = rest.pop() as (span: Span) => unknown;
        const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
        const base = ctx ?? context.active();
        const span = start(name, options, base);
        return context.with(trace.setSpan(base, span), fn, undefined, span);
      }) as Tracer['startActiveSpan'],
    };
  }
}

/** An AsyncLocalStorage context manager: the active span follows the call across awaits. */
class AsyncContextManager implements ContextManager {
  readonly #als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#als.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (self: unknown, args: unknown[]) =>
      this.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(self, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#als.disable();
    return this;
  }
}

/** What a case gets while spans are recorded. */
export interface SpanRecorder {
  /** Every span started since the recorder was installed (or cleared), in start order. */
  spans(): readonly RecordedSpan[];
  clear(): void;
  /**
   * Runs `fn` as the kit's own span (the caller's span a provider call must nest under) and
   * returns that span with `fn`'s promise.
   */
  underParent<T>(name: string, fn: () => Promise<T>): { parent: RecordedSpan; promise: Promise<T> };
  /** The spans whose chain of parents reaches `parent`. */
  descendants(parent: RecordedSpan): RecordedSpan[];
}

// One provider for the whole process: a tracer a provider obtained once (the API caches the
// delegate of a tracer it handed out) keeps recording into it across cases.
const PROVIDER = new RecordingTracerProvider();

export interface InstalledRecorder {
  recorder: SpanRecorder;
  uninstall(): void;
}

async function propagates(): Promise<boolean> {
  const probe = trace.wrapSpanContext({ traceId: hex(16), spanId: hex(8), traceFlags: 1 });
  return context.with(trace.setSpan(context.active(), probe), async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return trace.getSpan(context.active()) === probe;
  });
}

/**
 * Makes the kit's recorder the global tracer provider (and, when none is registered, installs a
 * context manager) for one case. Returns the reason instead when that is impossible: another
 * tracer provider is registered, or the registered context manager loses the active span across
 * an await.
 */
export async function installSpanRecorder(): Promise<InstalledRecorder | string> {
  const registeredContext = context.setGlobalContextManager(new AsyncContextManager());
  if (!trace.setGlobalTracerProvider(PROVIDER)) {
    if (registeredContext) context.disable();
    return 'another OpenTelemetry tracer provider is registered in this process: the kit cannot record spans';
  }
  const uninstall = () => {
    trace.disable();
    if (registeredContext) context.disable();
    PROVIDER.spans = [];
  };
  if (!(await propagates())) {
    uninstall();
    return 'the registered OpenTelemetry context manager loses the active span across an await';
  }
  PROVIDER.spans = [];
  const recorder: SpanRecorder = {
    spans: () => PROVIDER.spans,
    clear: () => {
      PROVIDER.spans = [];
    },
    underParent(name, fn) {
      const span = PROVIDER.getTracer().startSpan(name, { root: true });
      const parent = (span as RecordingSpan).data;
      const promise = context.with(trace.setSpan(context.active(), span), fn).finally(() => span.end());
      return { parent, promise };
    },
    descendants(parent) {
      const below = new Set([parent.spanId]);
      const out: RecordedSpan[] = [];
      // Spans are recorded in start order, so a parent is always seen before its children.
      for (const s of PROVIDER.spans) {
        if (s.traceId === parent.traceId && s.parentSpanId !== undefined && below.has(s.parentSpanId)) {
          below.add(s.spanId);
          out.push(s);
        }
      }
      return out;
    },
  };
  return { recorder, uninstall };
}
