import { ErrorKind, ProviderError } from '@egress-proxies/contract';
import type { LogLine } from '@egress-proxies/provider-utils';
import type { ConformanceCase } from '../case.js';
import { check, describeError } from '../failure.js';
import { settle, within } from '../wait.js';
import { errorBattery } from './battery.js';
import { oneInstance } from './get.js';
import { ABORT_BOUND_MS, expectAborted, expectKind, ok, viewsNamed, whileHeld } from './helpers.js';
import { operationCalls } from './operation-calls.js';

/** Everything written to the console or the standard streams while `fn` runs. */
async function captureOutput(fn: () => Promise<void>): Promise<string[]> {
  const out: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const saved = methods.map((m) => console[m]);
  const savedOut = process.stdout.write;
  const savedErr = process.stderr.write;
  for (const m of methods) {
    console[m] = (...args: unknown[]) => {
      out.push(`console.${m}: ${args.map(String).join(' ')}`);
    };
  }
  const writer = (chunk: unknown) => {
    out.push(String(chunk));
    return true;
  };
  process.stdout.write = writer as typeof process.stdout.write;
  process.stderr.write = writer as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    methods.forEach((m, i) => {
      console[m] = saved[i]!;
    });
    process.stdout.write = savedOut;
    process.stderr.write = savedErr;
  }
  return out;
}

export const operationCases: ConformanceCase[] = [
  {
    id: 'OPS-01',
    group: 'operations',
    title: 'an abort returns within one second at every step of every operation',
    proves: 'a cancelled reconcile or shutdown never waits on a hung backend call',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      for (const { op, steps, fresh } of await operationCalls(ctx)) {
        for (const step of steps) {
          const run = await fresh();
          const ac = new AbortController();
          let rejected: unknown;
          const s = await whileHeld(
            ctx,
            step,
            () => run(ac.signal),
            async (pending) => {
              ac.abort();
              const r = await within(
                pending.promise,
                ABORT_BOUND_MS,
                `${op} did not return within 1 s of an abort while held at step ${step}`,
              );
              if (!r.ok) rejected = r.error;
            },
          );
          check(!s.ok, `${op} aborted at step ${step} resolved instead of rejecting`);
          expectAborted(rejected ?? s.error, `${op} aborted at step ${step}`);
        }
      }
    },
  },
  {
    id: 'OPS-02',
    group: 'operations',
    title: 'every error is a ProviderError carrying the configured provider name and the operation',
    proves: 'the reconciler can classify every failure and the user sees which provider entry failed',
    gate: 'always',
    applies: () => true,
    timeoutMs: 30_000,
    async run(ctx) {
      const errors = await errorBattery(ctx);
      check(errors.length >= 5, `the error battery produced only ${errors.length} errors`);
      const kinds = new Set<string>(Object.values(ErrorKind));
      for (const { what, op, err } of errors) {
        check(ProviderError.isInstance(err), `${what}: not a ProviderError (${describeError(err)})`);
        check(err.reason.trim() !== '', `${what}: the error says nothing (empty message)`);
        check(
          err.provider === ctx.config.providerName,
          `${what}: the error names provider ${JSON.stringify(err.provider)}, configured ${JSON.stringify(ctx.config.providerName)}`,
        );
        check(kinds.has(err.kind), `${what}: unknown error kind ${err.kind}`);
        check(
          err.operation === op,
          `${what}: the error names operation ${JSON.stringify(err.operation)}, expected ${JSON.stringify(op)}`,
        );
        check(typeof err.code === 'string' && err.code.length > 0, `${what}: the error has no code`);
      }
    },
  },
  {
    id: 'OPS-04',
    group: 'operations',
    title:
      'logging tiers: silent without a logger or at V0, outcome lines at V1 (the Checker naming each target), detail at V2, each line naming the provider',
    proves: 'operators get a quiet default and can turn on detail without code changes',
    gate: 'logging (tiered or none)',
    applies: () => true,
    async run(ctx) {
      const { provider } = ctx;
      const out = await captureOutput(async () => {
        const req = ctx.request();
        const silent = ctx.logger(0);
        // Call options are optional: every call works without them, and without a logger says nothing.
        const id = await ok(provider.create(req), 'create without call options');
        ctx.track(id);
        await ok(provider.get(id), 'get without call options');
        await ok(provider.get(id, { logger: silent.logger }), 'get at V0');
        await ok(provider.listByTag(), 'listByTag without call options');
        await ok(provider.listByTag({}), 'listByTag without a logger');
        if (provider.listSecondary) await ok(provider.listSecondary(), 'listSecondary without call options');
        if (ctx.checker) await ok(ctx.checker.check(), 'check without call options');
        await ok(provider.delete(id), 'delete without call options');
        await ok(provider.delete(id, { logger: silent.logger }), 'delete at V0');
        check(silent.lines.length === 0, `a V0 logger received ${silent.lines.length} lines`);
      });
      check(out.length === 0, `with no logger (or V0) the provider wrote to the console: ${out[0]}`);
      const perTier: number[] = [];
      for (const verbosity of [1, 2]) {
        const counts: Record<string, number> = {};
        const lines: LogLine[] = [];
        const run = async (
          op: string,
          fn: (o: { logger: ReturnType<typeof ctx.logger>['logger'] }) => Promise<unknown>,
        ) => {
          const l = ctx.logger(verbosity);
          await ok(fn({ logger: l.logger }), `${op} at V${verbosity}`);
          counts[op] = l.lines.length;
          lines.push(...l.lines);
        };
        let id = '';
        await run('create', async (o) => {
          id = await ctx.create(ctx.request(), o);
        });
        await run('get', (o) => provider.get(id, o));
        await run('listByTag', (o) => provider.listByTag(o));
        await run('delete', (o) => provider.delete(id, o));
        for (const line of lines) {
          check(line.level <= verbosity, `a V${verbosity} logger got a level ${line.level} line`);
          check(
            line.provider === ctx.config.providerName,
            `log line "${line.msg}" carries provider ${JSON.stringify(line.provider)}, configured ${JSON.stringify(ctx.config.providerName)}`,
          );
        }
        if (ctx.profile.logging === 'none') {
          check(lines.length === 0, `profile.logging is "none" but V${verbosity} got ${lines.length} lines`);
        } else if (verbosity === 1) {
          for (const [op, n] of Object.entries(counts)) check(n >= 1, `${op} logged no outcome line at V1`);
        }
        perTier.push(counts.create ?? 0);
      }
      if (ctx.checker && ctx.profile.logging === 'tiered') {
        const l = ctx.logger(1);
        const results = await ok(ctx.checker.check({ logger: l.logger }), 'check at V1');
        for (const line of l.lines) {
          check(
            line.provider === ctx.config.providerName,
            `check line "${line.msg}" carries provider ${JSON.stringify(line.provider)}, configured ${JSON.stringify(ctx.config.providerName)}`,
          );
        }
        // Lines about a target carry it: each target's outcome is in some V1 line.
        for (const r of results) {
          check(
            l.lines.some((line) => Object.values(line).includes(r.target)),
            `no V1 line of check names the target ${r.target}`,
          );
        }
      }
      if (ctx.profile.logging === 'tiered') {
        check(
          perTier[1]! > perTier[0]!,
          `create logged ${perTier[1]} lines at V2 and ${perTier[0]} at V1: no detail tier`,
        );
      }
    },
  },
  {
    id: 'OPS-05',
    group: 'operations',
    title: 'an already-aborted signal rejects promptly as Transient and changes nothing',
    proves: 'a call made after shutdown began does no work',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { provider } = ctx;
      const { id } = await oneInstance(ctx);
      const ac = new AbortController();
      ac.abort();
      const req = ctx.request();
      const calls: [string, () => Promise<unknown>][] = [
        ['create', () => provider.create(req, ctx.opts(ac.signal))],
        ['get', () => provider.get(id, ctx.opts(ac.signal))],
        ['listByTag', () => provider.listByTag(ctx.opts(ac.signal))],
        ['delete', () => provider.delete(id, ctx.opts(ac.signal))],
      ];
      for (const [op, call] of calls) {
        const s = await within(
          settle(call()),
          ABORT_BOUND_MS,
          `${op} with an aborted signal did not return within 1 s`,
        );
        check(!s.ok, `${op} with an aborted signal resolved`);
        expectAborted(s.error, `${op} with an aborted signal`);
      }
      check((await viewsNamed(ctx, req.name)).length === 0, 'create with an aborted signal made an instance');
      await ok(provider.get(id, ctx.opts()), 'get after the aborted delete');
    },
  },
  {
    id: 'OPS-06',
    group: 'operations',
    title: 'constructing the provider makes no backend call, and it carries its configured name and a type',
    proves: 'a provider entry with a dead backend never blocks the operator from starting',
    gate: 'always',
    applies: () => true,
    async run(ctx) {
      const { provider } = ctx;
      check(
        provider.name === ctx.config.providerName,
        `the provider calls itself ${JSON.stringify(provider.name)}; it was configured as ${JSON.stringify(ctx.config.providerName)}`,
      );
      check(typeof provider.type === 'string' && provider.type !== '', 'the provider has no type');
      const calls = await ctx.backend.calls();
      check(
        calls.length === 0,
        `the provider made backend calls before its first operation: ${calls.map((c) => c.step).join(', ')}`,
      );
    },
  },
  {
    id: 'OPS-07',
    group: 'operations',
    title: 'close is safe twice, and calls after close are Permanent',
    proves: 'a provider removed from the config releases what it holds and cannot be used by accident',
    gate: 'provider.close',
    applies: (f) => (f.provider.close ? true : 'the provider has no close()'),
    async run(ctx) {
      const { provider } = ctx;
      const { id } = await oneInstance(ctx);
      await ok(provider.delete(id, ctx.opts()), 'delete');
      await ok(provider.close!(), 'close');
      await ok(provider.close!(), 'the second close');
      const req = ctx.request();
      const calls: [string, () => Promise<unknown>][] = [
        ['create', () => provider.create(req, ctx.opts())],
        ['get', () => provider.get(id, ctx.opts())],
        ['listByTag', () => provider.listByTag(ctx.opts())],
      ];
      for (const [op, call] of calls) {
        const err = await ctx.rejects(call(), `${op} after close`);
        expectKind(err, ErrorKind.Permanent, `${op} after close`);
      }
      check((await viewsNamed(ctx, req.name)).length === 0, 'create after close made an instance');
    },
  },
];
