import {
  type CheckResult,
  ErrorCode,
  ErrorKind,
  type Instance,
  InstanceState,
  notFoundError,
  ProviderError,
} from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { defineProvider, type OpContext, type ProviderDefinition } from './define-provider.js';
import { createLogger, type LogLine } from './logger.js';

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

interface BoxContext extends OpContext {
  readonly region: string;
}

const profile = {
  listPartial: 'fail-whole',
  egress: 'shared',
} as unknown as ProviderDefinition<BoxContext>['profile'];

/** A provider over a map, recording the context each op got. */
function box(over: Partial<ProviderDefinition<BoxContext, { region: string }>> = {}, createThrows?: unknown) {
  const seen: BoxContext[] = [];
  const store = new Map<string, Instance>();
  let closes = 0;
  const provider = defineProvider<BoxContext, { region: string }>({
    type: 'box',
    name: 'box-eu',
    profile,
    nameOfId: (id) => {
      if (!id.startsWith('box/')) throw new Error('not a box id');
      return id.slice(4);
    },
    context: (call) => ({ ...call, region: 'eu' }),
    ops: {
      async create(ctx, req) {
        seen.push(ctx);
        if (createThrows) throw createThrows;
        ctx.logger.log(1, 'creating');
        store.set(`box/${req.name}`, { id: `box/${req.name}`, uid: req.uid, state: InstanceState.Running });
        return `box/${req.name}`;
      },
      async get(ctx, id) {
        seen.push(ctx);
        ctx.logger.log(1, 'getting');
        const i = store.get(id);
        if (!i) throw notFoundError(`${id} is not there`);
        return i;
      },
      async delete(ctx, id) {
        seen.push(ctx);
        store.delete(id);
      },
      async listByTag(ctx) {
        seen.push(ctx);
        return [...store.values()];
      },
      async check(ctx): Promise<CheckResult[]> {
        seen.push(ctx);
        return [
          { target: ctx.region, address: 'box', ready: true, reason: 'Ready', message: 'fine', details: {} },
        ];
      },
    },
    close: async () => {
      closes++;
    },
    extra: { region: 'eu' },
    ...over,
  });
  return { provider, seen, closes: () => closes };
}

describe('defineProvider', () => {
  it('hands every op one context: the call signal, its logger and operation, and the provider state', async () => {
    const lines: LogLine[] = [];
    const logger = createLogger({ verbosity: 1, sink: (l) => lines.push(l) });
    const { provider, seen } = box();
    const signal = new AbortController().signal;
    const id = await provider.create({ name: 'a', uid: 'u1', tags: {} } as never, { signal, logger });
    await provider.get(id, { logger });
    await provider.check({ signal });
    expect(seen.map((c) => [c.operation, c.signal, c.region])).toEqual([
      ['create', signal, 'eu'],
      ['get', undefined, 'eu'],
      ['check', signal, 'eu'],
    ]);
    // The instance's name on each line: the request's for create, the ID's for get (contract 2.9).
    expect(lines.map((l) => [l.msg, l.provider, l.operation, l.name])).toEqual([
      ['creating', 'box-eu', 'create', 'a'],
      ['getting', 'box-eu', 'get', 'a'],
    ]);
    expect([provider.name, provider.type, provider.region]).toEqual(['box-eu', 'box', 'eu']);
    expect('listSecondary' in provider).toBe(false);
  });

  it('classifies and wraps what an op throws with the entry name and the operation', async () => {
    const { provider } = box();
    const nf = await caught(provider.get('box/missing'));
    expect([nf.kind, nf.provider, nf.operation]).toEqual([ErrorKind.NotFound, 'box-eu', 'get']);
    // A backend's own error goes through classify before it is wrapped; unclassified, it is Transient.
    const classify = (err: unknown) => (err instanceof TypeError ? notFoundError('classified') : err);
    const bad = await caught(
      box({ classify }, new TypeError('boom')).provider.create({ name: 'b', uid: 'u', tags: {} } as never),
    );
    expect([bad.kind, bad.reason, bad.provider, bad.operation]).toEqual([
      ErrorKind.NotFound,
      'classified',
      'box-eu',
      'create',
    ]);
    const raw = await caught(
      box({}, new Error('boom')).provider.create({ name: 'b', uid: 'u', tags: {} } as never),
    );
    expect(raw.kind).toBe(ErrorKind.Transient);
  });

  it('refuses every call after close with PROVIDER_CLOSED, and releases once', async () => {
    const { provider, seen, closes } = box();
    await provider.close();
    await provider.close();
    expect(closes()).toBe(1);
    for (const call of [
      () => provider.create({ name: 'a', uid: 'u', tags: {} } as never),
      () => provider.get('box/a'),
      () => provider.delete('box/a'),
      () => provider.listByTag(),
      () => provider.check(),
    ]) {
      const err = await caught(call());
      expect([err.kind, err.code, err.provider]).toEqual([
        ErrorKind.Permanent,
        ErrorCode.ProviderClosed,
        'box-eu',
      ]);
    }
    expect(seen).toEqual([]);
  });

  it('runs each op and the check inside `around`, and offers the secondary ops only when defined', async () => {
    const wrapped: string[] = [];
    const { provider } = box({
      around: async (ctx, fn) => {
        wrapped.push(ctx.operation);
        return fn();
      },
    });
    await provider.listByTag();
    await provider.check();
    expect(wrapped).toEqual(['listByTag', 'check']);

    const deleted: string[] = [];
    const base = box().provider;
    const withSecondary = defineProvider<BoxContext>({
      type: 'box',
      name: 'box-2',
      profile,
      context: (call) => ({ ...call, region: 'eu' }),
      ops: {
        create: (_c, r) => base.create(r),
        get: (_c, id) => base.get(id),
        delete: (_c, id) => base.delete(id),
        listByTag: () => base.listByTag(),
        check: () => base.check(),
        listSecondary: async () => [],
        deleteSecondary: async (ctx, id) => {
          deleted.push(`${ctx.operation} ${id}`);
        },
      },
    });
    await withSecondary.deleteSecondary?.('vol-1');
    expect(deleted).toEqual(['deleteSecondary vol-1']);
    expect(await withSecondary.listSecondary?.()).toEqual([]);
  });
});
