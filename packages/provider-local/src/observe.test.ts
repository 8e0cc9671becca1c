import { ErrorCode, ProviderError } from '@egress-proxies/contract';
import { createLogger, type LogLine, withSpan } from '@egress-proxies/provider-utils';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalBackend, STEPS } from './backend.js';
import { observe } from './observe.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracer);
});
afterAll(async () => {
  await tracer.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const METHODS = Object.keys(STEPS) as (keyof LocalBackend)[];

/** Realistic arguments; the two that carry file contents carry a marker that must never be logged. */
function argsOf(m: keyof LocalBackend): unknown[] {
  switch (m) {
    case 'writeState':
      return [undefined, 'proxy-a', '{"secret-text": 1}'];
    case 'writeRuntime':
      return [undefined, 'proxy-a', { 'squid.conf': 'secret-text' }];
    case 'spawn':
      return [undefined, { command: '/usr/sbin/squid', args: ['-N'], runtimeDir: '/s/run/proxy-a' }];
    case 'inspect':
      return [undefined, 1234];
    case 'kill':
      return [undefined, 1234, 'SIGTERM'];
    case 'probePort':
    case 'portFree':
      return [undefined, '127.0.0.1', 40000];
    default:
      return [undefined, 'proxy-a'];
  }
}

function stub(fail: boolean): LocalBackend {
  const b: Record<string, unknown> = {};
  for (const m of METHODS) {
    b[m] = async () => {
      if (fail) throw Object.assign(new Error('EBUSY: resource busy'), { code: 'EBUSY' });
      return undefined;
    };
  }
  return b as unknown as LocalBackend;
}

describe('observe', () => {
  for (const fail of [false, true]) {
    it(`logs one V1 line per call and opens a child span per call (${fail ? 'failing' : 'succeeding'})`, async () => {
      const lines: LogLine[] = [];
      const backend = observe(stub(fail), createLogger({ verbosity: 1, sink: (l) => lines.push(l) }));
      await withSpan('parent', {}, async () => {
        for (const m of METHODS) {
          const call = (backend[m] as (...a: unknown[]) => Promise<unknown>)(...argsOf(m));
          if (fail) {
            const err = await call.catch((e: unknown) => e);
            expect(ProviderError.isInstance(err)).toBe(true);
            expect((err as ProviderError).code).toBe(ErrorCode.Busy);
            expect((err as ProviderError).details).toMatchObject({ step: STEPS[m], errno: 'EBUSY' });
          } else {
            await call;
          }
        }
      });
      expect(lines.map((l) => l.step)).toEqual(METHODS.map((m) => STEPS[m]));
      for (const l of lines) {
        expect(l.level).toBe(1);
        expect(l.msg).toBe(fail ? 'local call failed' : 'local call');
        expect(typeof l.durationMs).toBe('number');
        expect(JSON.stringify(l)).not.toContain('secret-text');
      }
      const spans = exporter.getFinishedSpans();
      const parent = spans.find((s) => s.name === 'parent')!;
      const children = spans.filter((s) => s.name.startsWith('local.'));
      expect(children.map((s) => s.name)).toEqual(METHODS.map((m) => `local.${STEPS[m]}`));
      for (const c of children) {
        expect(c.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
        expect(c.status.code).toBe(fail ? 2 : 0);
      }
    });
  }

  it('logs the calls of a polling wait at V2 only', async () => {
    for (const verbosity of [1, 2]) {
      const lines: LogLine[] = [];
      const backend = observe(stub(false), createLogger({ verbosity, sink: (l) => lines.push(l) }), 2);
      await backend.inspect(undefined, 1234);
      expect(lines.map((l) => l.level)).toEqual(verbosity === 2 ? [2] : []);
    }
  });

  it('writes nothing at V0', async () => {
    const lines: LogLine[] = [];
    const backend = observe(stub(false), createLogger({ verbosity: 0, sink: (l) => lines.push(l) }));
    await backend.listStates(undefined);
    expect(lines).toEqual([]);
  });
});
