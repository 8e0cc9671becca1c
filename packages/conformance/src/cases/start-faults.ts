import { ErrorCode, ErrorKind, type ProviderError } from '@egress-proxies/contract';
import type { ConformanceCase } from '../case.js';
import type { StartFault } from '../control.js';
import { check, describeError } from '../failure.js';
import { settle, within } from '../wait.js';
import { expectKind, ok, onlyView, resourceCounts } from './helpers.js';

/**
 * How long a create of a machine that never runs may take to give up by itself. A liveness
 * limit, not a timing test: the harness configures a start budget well below it.
 */
const GIVES_UP_BOUND_MS = 20_000;

const HOW: Record<StartFault, string> = {
  crashes: 'crashes right after its start',
  'powers-off': 'powers off right after its start',
  'never-runs': 'never gets past starting',
};

export const startFaultCases: ConformanceCase[] = [
  {
    id: 'CREATE-19',
    group: 'create',
    title:
      'a machine that crashes, powers off or never runs fails a blocking create as Transient (a stuck start with a code that says so), and a retry once it can run ends with one running instance',
    proves:
      'a blocking create neither reports a dead machine as ready nor waits on it forever, and the next attempt reuses what the failed one made',
    gate: 'createReturn = blocking, backend.failStart',
    applies: (f) => {
      if (f.profile.createReturn !== 'blocking')
        return 'profile.createReturn is "submit": create does not wait for the machine to run';
      if (!f.backend.failStart || !f.backend.startFaults?.length)
        return 'backend.failStart is absent: the harness cannot make a started machine crash or hang';
      return true;
    },
    timeoutMs: 90_000,
    async run(ctx) {
      const clean = ctx.request();
      await ok(ctx.create(clean), 'a clean create');
      const parts = await resourceCounts(ctx, clean.name);
      for (const fault of ctx.backend.startFaults!) {
        await ctx.backend.reset();
        const req = ctx.request();
        const what = `create of a machine that ${HOW[fault]}`;
        await ctx.backend.failStart!(req.name, fault, req.placement.zone);
        const s = await within(
          settle(ctx.create(req)),
          GIVES_UP_BOUND_MS,
          `${what} did not give up by itself`,
        );
        check(!s.ok, `${what} resolved`);
        expectKind(s.error, ErrorKind.Transient, what);
        const code = (s.error as ProviderError).code;
        if (fault === 'never-runs') {
          check(
            !([ErrorCode.Transient, ErrorCode.BackendError, ErrorCode.Aborted] as string[]).includes(code),
            `${what} failed with the generic code ${code}: a start budget that ran out is ${ErrorCode.Timeout} (or the provider's own code)`,
          );
        } else {
          check(
            code !== ErrorCode.Timeout && code !== ErrorCode.Aborted,
            `${what} failed with ${code}: nothing ran out, the machine stopped (${describeError(s.error)})`,
          );
        }
        const view = await onlyView(ctx, req.name, `after ${what} failed`);
        check(view.marked, `after ${what} failed, the machine it made carries no mark`);
        await ctx.backend.reset();
        const id = await ok(ctx.create(req), `the retry after ${what} failed`);
        const again = await onlyView(ctx, req.name, `after the retry of ${what}`);
        check(again.id === id, `the retry returned ${id}; the instance is ${again.id}`);
        check(again.running, `the retry after ${what} returned while the machine is ${again.state}`);
        const now = await resourceCounts(ctx, req.name);
        check(
          now === parts,
          `after ${what} and a retry the instance has ${now}; a clean create leaves ${parts}`,
        );
      }
    },
  },
];
