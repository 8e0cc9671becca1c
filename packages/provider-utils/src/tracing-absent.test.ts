import { describe, expect, it, vi } from 'vitest';

// A machine where `@opentelemetry/api` is not installed: requiring it fails as Node fails.
vi.mock('./otel-loader.js', () => ({
  requireOpenTelemetry: vi.fn(() => {
    throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), {
      code: 'MODULE_NOT_FOUND',
    });
  }),
}));

const { requireOpenTelemetry } = await import('./otel-loader.js');
const { openTelemetry, traceFields, withSpan } = await import('./tracing.js');
const { createOperationRunner } = await import('./operation-runner.js');

describe('without @opentelemetry/api installed', () => {
  it('calls through the runner still work and try nothing while no application registered OpenTelemetry', async () => {
    const runner = createOperationRunner({ name: 'p', isClosed: () => false });
    await expect(runner.run('get', undefined, async () => 'ok')).resolves.toBe('ok');
    await expect(withSpan('provider.get', {}, () => 42)).resolves.toBe(42);
    expect(traceFields()).toEqual({});
    expect(requireOpenTelemetry).not.toHaveBeenCalled();
  });

  it('with a registration it tries once, then makes no spans: calls still run, errors pass through unchanged', async () => {
    const key = Symbol.for('opentelemetry.js.api.1');
    (globalThis as Record<symbol, unknown>)[key] = { version: '1.9.0' };
    try {
      expect(openTelemetry()).toBeUndefined();
      await expect(withSpan('provider.create', {}, async (span) => span.isRecording())).resolves.toBe(false);
      const err = new Error('backend said no');
      await expect(withSpan('provider.create', {}, () => Promise.reject(err))).rejects.toBe(err);
      expect(traceFields()).toEqual({});
      const runner = createOperationRunner({ name: 'p', isClosed: () => false });
      await expect(runner.run('create', undefined, async () => 'made')).resolves.toBe('made');
      expect(requireOpenTelemetry).toHaveBeenCalledTimes(1);
    } finally {
      delete (globalThis as Record<symbol, unknown>)[key];
    }
  });
});
