import { ErrorCode, ErrorKind, ProviderError, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLine } from './logger.js';
import { createOperationRunner, instanceFields } from './operation-runner.js';

function caught(p: Promise<unknown>): Promise<ProviderError> {
  return p.then(
    () => {
      throw new Error('resolved');
    },
    (err: unknown) => {
      if (!ProviderError.isInstance(err)) throw err;
      return err;
    },
  );
}

describe('createOperationRunner', () => {
  it('passes the call its signal and a logger naming the provider and operation', async () => {
    const lines: LogLine[] = [];
    const runner = createOperationRunner({
      name: 'box-eu',
      isClosed: () => false,
      fields: { logger: 'box' },
    });
    const signal = new AbortController().signal;
    const out = await runner.run(
      'get',
      { signal, logger: createLogger({ verbosity: 2, sink: (l) => lines.push(l) }) },
      async (call) => {
        call.logger.log(2, 'reading', { id: 'x' });
        expect(call.signal).toBe(signal);
        return call.operation;
      },
      { id: 'x' },
    );
    expect(out).toBe('get');
    expect(lines).toEqual([
      { logger: 'box', provider: 'box-eu', operation: 'get', id: 'x', level: 2, msg: 'reading' },
    ]);
  });

  it('refuses every call after close with Permanent PROVIDER_CLOSED, without running it', async () => {
    let ran = false;
    const runner = createOperationRunner({ name: 'box-eu', isClosed: () => true });
    const err = await caught(
      runner.run('create', {}, async () => {
        ran = true;
      }),
    );
    expect(ran).toBe(false);
    expect([err.kind, err.code, err.provider, err.operation]).toEqual([
      ErrorKind.Permanent,
      ErrorCode.ProviderClosed,
      'box-eu',
      'create',
    ]);
    expect(runner.closedError('check').code).toBe(ErrorCode.ProviderClosed);
    const aborted = await caught(runner.run('get', { signal: AbortSignal.abort() }, async () => 1));
    expect(aborted.code).toBe(ErrorCode.ProviderClosed);
  });

  it('fails fast on an aborted signal and returns promptly when it aborts mid-way', async () => {
    const runner = createOperationRunner({ name: 'b', isClosed: () => false });
    const before = await caught(
      runner.run('get', { signal: AbortSignal.abort() }, () => new Promise(() => {})),
    );
    expect([before.kind, before.code]).toEqual([ErrorKind.Transient, ErrorCode.Aborted]);
    const ac = new AbortController();
    const pending = caught(runner.run('get', { signal: ac.signal }, () => new Promise(() => {})));
    ac.abort();
    expect((await pending).code).toBe(ErrorCode.Aborted);
  });

  it('maps what an aborted call threw to the abort, and a timeout signal to TIMEOUT', async () => {
    const runner = createOperationRunner({ name: 'b', isClosed: () => false, raceSignal: false });
    const ac = new AbortController();
    const err = await caught(
      runner.run('get', { signal: ac.signal }, async () => {
        ac.abort();
        throw new Error('socket hang up');
      }),
    );
    expect(err.code).toBe(ErrorCode.Aborted);
    const ac2 = new AbortController();
    const classified = await caught(
      runner.run('get', { signal: ac2.signal }, async () => {
        ac2.abort();
        throw transientError('request failed', { code: 'BACKEND_ERROR' });
      }),
    );
    expect(classified.code).toBe(ErrorCode.Aborted);
    const timeout = await caught(
      runner.run(
        'get',
        { signal: AbortSignal.timeout(1) },
        () => new Promise((_r, rej) => setTimeout(() => rej(new Error('x')), 50)),
      ),
    );
    expect(timeout.code).toBe(ErrorCode.Timeout);
  });

  it('reports ABORTED whatever reason the caller aborts with, not TRANSIENT (contract 2.6)', async () => {
    const runner = createOperationRunner({ name: 'b', isClosed: () => false });
    const ac = new AbortController();
    const pending = caught(runner.run('create', { signal: ac.signal }, () => new Promise(() => {})));
    // The operator aborts with its own Error when it stops, not with an AbortError.
    ac.abort(new Error('operator stopping'));
    const err = await pending;
    expect([err.kind, err.code]).toEqual([ErrorKind.Transient, ErrorCode.Aborted]);
    const before = await caught(
      runner.run('get', { signal: AbortSignal.abort(new Error('gone')) }, async () => 1),
    );
    expect(before.code).toBe(ErrorCode.Aborted);
    // A reason already classified by the caller keeps its class.
    const ac2 = new AbortController();
    const kept = caught(runner.run('get', { signal: ac2.signal }, () => new Promise(() => {})));
    ac2.abort(transientError('deadline', { code: 'DEADLINE' }));
    expect((await kept).code).toBe('DEADLINE');
  });

  it('classifies, wraps with the name and operation, and logs failures when asked', async () => {
    const lines: LogLine[] = [];
    const runner = createOperationRunner({
      name: 'box-eu',
      isClosed: () => false,
      classify: (err, op) => transientError(`${op}: ${(err as Error).message}`, { code: 'BOX_BUSY' }),
      failureLogPrefix: 'box',
      logger: createLogger({ verbosity: 1, sink: (l) => lines.push(l) }),
    });
    const err = await caught(
      runner.run('delete', undefined, async () => {
        throw new Error('busy');
      }),
    );
    expect([err.code, err.reason, err.provider, err.operation]).toEqual([
      'BOX_BUSY',
      'delete: busy',
      'box-eu',
      'delete',
    ]);
    expect(lines).toEqual([
      {
        provider: 'box-eu',
        operation: 'delete',
        level: 1,
        msg: 'box delete failed',
        error: 'delete: busy',
        kind: 'Transient',
        code: 'BOX_BUSY',
      },
    ]);
  });

  it('leaves out the operation field when asked', () => {
    const lines: LogLine[] = [];
    const runner = createOperationRunner({ name: 'b', isClosed: () => false, operationField: false });
    runner
      .loggerFor('get', { logger: createLogger({ verbosity: 1, sink: (l) => lines.push(l) }) })
      .log(1, 'x');
    expect(lines).toEqual([{ provider: 'b', level: 1, msg: 'x' }]);
  });
});

describe('instanceFields', () => {
  it('names the instance when it can be read, and gives nothing when it cannot', () => {
    expect(instanceFields(() => 'proxy-1')).toEqual({ name: 'proxy-1' });
    expect(instanceFields(() => '')).toEqual({});
    expect(instanceFields(() => 42)).toEqual({});
    expect(
      instanceFields(() => {
        throw new Error('not an ID');
      }),
    ).toEqual({});
  });
});
