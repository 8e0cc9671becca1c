import { type CallOptions, ErrorKind, type Instance, type Provider } from '@egress-proxies/contract';
import {
  canonicalAddress,
  compileEgressPlan,
  type EgressPlan,
  egressPlanSchema,
  inPlan,
  type PlanFamily,
  parseConfig,
} from '@egress-proxies/provider-utils';
import type { ConformanceCase } from '../case.js';
import type { CaseContext } from '../context.js';
import { ConformanceFailure, check, describeError } from '../failure.js';
import type { ConformanceFixture } from '../fixture.js';
import { within } from '../wait.js';
import { expectKind, GATE_BOUND_MS, ok, outcome } from './helpers.js';

/** The most instances a case creates to fill a plan; a larger plan cannot be exhausted here. */
const MAX_FILL = 16;
const GATE = 'profile.egress: planned, with config.egress';
/** Rounds of concurrent creates that fill the plan (CREATE-25). */
const CONCURRENT_ROUNDS = 5;

function applies(f: ConformanceFixture): true | string {
  if (f.profile.egress !== 'planned')
    return `profile.egress is ${f.profile.egress ?? 'absent (shared)'}, not planned`;
  return f.config.egress ? true : 'config.egress is absent: the harness names no plan to check against';
}

function appliesWith(member: 'freshProvider' | 'deliveredNetwork' | 'define') {
  return (f: ConformanceFixture): true | string => {
    const base = applies(f);
    if (base !== true) return base;
    if (member === 'freshProvider' && !f.freshProvider)
      return 'freshProvider is absent: the harness cannot make a second provider over the same backend';
    if (member === 'deliveredNetwork' && !f.backend.deliveredNetwork)
      return "backend.deliveredNetwork is absent: the harness cannot read the instance's network-config and NICs";
    if (member === 'define' && !f.backend.steps.define)
      return 'backend.steps.define is absent: the kit cannot hold a create between its allocation and its instance';
    return true;
  };
}

/** The kit's own reading of the harness's plan, through the same schema providers validate with. */
function planOf(ctx: CaseContext): EgressPlan {
  const e = ctx.config.egress!;
  return compileEgressPlan(
    e.planName,
    parseConfig(egressPlanSchema, e.plan, { type: 'conformance config.egress.plan' }),
  );
}

function families(plan: EgressPlan): PlanFamily[] {
  return [plan.ipv4, plan.ipv6].filter((f): f is PlanFamily => f !== undefined);
}

/** How many instances the plan holds: its smallest family's size. */
function sizeOf(plan: EgressPlan): bigint {
  // bigint sizes (an IPv6 /64 has 2^64), so no Math.min.
  let least = BigInt(Number.MAX_SAFE_INTEGER);
  for (const f of families(plan)) if (f.size < least) least = f.size;
  return least;
}

/** How many instances fill the plan; skips the case when that is more than it should create. */
function capacity(ctx: CaseContext, plan: EgressPlan): number {
  const size = sizeOf(plan);
  if (size > BigInt(MAX_FILL)) {
    ctx.skip(`the plan holds ${size} instances; give the harness a plan of at most ${MAX_FILL} to fill it`);
  }
  return Number(size);
}

const familyKey = (f: PlanFamily) => (f.family === 4 ? 'ipv4' : 'ipv6');

/** The instance's egress, one address per planned family, each inside the plan; fails otherwise. */
function egressOf(inst: Instance, plan: EgressPlan, what: string): string[] {
  const out: string[] = [];
  for (const f of families(plan)) {
    const address = inst.egress?.[familyKey(f)];
    check(
      typeof address === 'string',
      `${what}: egress.${familyKey(f)} is ${JSON.stringify(address)}; a planned instance reports its address of every planned family (egress is ${JSON.stringify(inst.egress)})`,
    );
    check(
      inPlan(f, address),
      `${what}: egress.${familyKey(f)} ${address} is not an address plan ${plan.name} can allocate`,
    );
    out.push(canonicalAddress(address));
  }
  return out;
}

/** Fails when two holders share an address. */
function distinct(held: ReadonlyMap<string, readonly string[]>, what: string): void {
  const by = new Map<string, string>();
  for (const [holder, addresses] of held) {
    for (const a of addresses) {
      const other = by.get(a);
      check(other === undefined, `${what}: ${other} and ${holder} both hold egress ${a}`);
      by.set(a, holder);
    }
  }
}

/** Reads every named instance's egress with `provider.get`. */
async function egressByName(
  ctx: CaseContext,
  provider: Provider,
  ids: ReadonlyMap<string, string>,
  plan: EgressPlan,
  what: string,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const [name, id] of ids) {
    const inst = await ok(provider.get(id, ctx.opts()), `${what}: get ${name}`);
    out.set(name, egressOf(inst, plan, `${what}: get ${name}`));
  }
  return out;
}

/** Creates `n` instances one after another; returns name -> id. */
async function fill(ctx: CaseContext, n: number): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const req = ctx.request();
    ids.set(req.name, await ok(ctx.create(req), `create ${i + 1} of ${n}`));
  }
  return ids;
}

/** Fills the plan to capacity and reads back each instance's egress. */
async function fillPlan(ctx: CaseContext, what: string) {
  const plan = planOf(ctx);
  const ids = await fill(ctx, capacity(ctx, plan));
  return { plan, ids, held: await egressByName(ctx, ctx.provider, ids, plan, what) };
}

async function withFresh<T>(ctx: CaseContext, fn: (p: Provider) => Promise<T>): Promise<T> {
  const fresh = await ctx.freshProvider();
  try {
    return await fn(fresh);
  } finally {
    await fresh.close?.();
  }
}

/** A create that must fail because the plan is full: QuotaExceeded, naming the plan. */
function expectExhausted(err: unknown, plan: EgressPlan, what: string): void {
  expectKind(err, ErrorKind.QuotaExceeded, what);
  const reason = (err as { reason: string }).reason;
  check(reason.includes(plan.name), `${what}: the error does not name the plan ${plan.name} (${reason})`);
}

/** Where `value` appears in `text` as a whole address or prefix, not inside a longer one. */
function mentions(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^0-9A-Fa-f:.])${escaped}($|[^0-9A-Fa-f:.])`).test(text);
}

export const egressCases: ConformanceCase[] = [
  {
    id: 'CREATE-24',
    group: 'create',
    title:
      'planned egress: instances created one after another never share an address, and get and listByTag report it',
    proves:
      'each instance gets its own address of every planned family from the plan (an unmarked machine on the host neither blocks nor holds one), and the provider reports it as Instance.egress from get and from listByTag alike',
    gate: GATE,
    applies,
    async run(ctx) {
      // A domain that is not ours beside the plan's holders: allocation reads marks, and must
      // neither stumble on nor count a machine without one.
      await ctx.seed({ name: ctx.name(), zone: ctx.config.placement.zone, mark: 'none' });
      const { plan, ids, held } = await fillPlan(ctx, 'after sequential creates');
      distinct(held, 'after sequential creates');
      const listed = await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag');
      for (const [name, id] of ids) {
        const inst = listed.find((i) => i.id === id);
        check(inst !== undefined, `listByTag left out ${id}`);
        const got = egressOf(inst, plan, `listByTag's ${name}`);
        check(
          got.join(' ') === held.get(name)!.join(' '),
          `listByTag reports egress ${got.join(' ')} for ${name}, get ${held.get(name)!.join(' ')}`,
        );
      }
    },
  },
  {
    id: 'CREATE-25',
    group: 'create',
    title: 'planned egress: concurrent creates in one process never share an address',
    proves:
      'two creates that allocate at the same moment do not both pick an address the other is about to take',
    gate: GATE,
    applies,
    async run(ctx) {
      const plan = planOf(ctx);
      const n = capacity(ctx, plan);
      // Names spread over the plan by a hash, so one round of a racy allocator may come out
      // distinct by luck; several rounds make that luck vanishingly rare.
      for (let round = 1; round <= CONCURRENT_ROUNDS; round++) {
        const what = `round ${round} of ${n} concurrent creates on a plan of ${n}`;
        const reqs = Array.from({ length: n }, () => ctx.request());
        const settled = await Promise.all(reqs.map((r) => outcome(ctx.create(r), `${what}: ${r.name}`)));
        const ids = new Map<string, string>();
        settled.forEach((s, i) => {
          if (!s.ok)
            throw new ConformanceFailure(`${what}: ${reqs[i]!.name} failed (${describeError(s.error)})`);
          ids.set(reqs[i]!.name, s.value);
        });
        distinct(await egressByName(ctx, ctx.provider, ids, plan, what), what);
        for (const id of ids.values()) await ok(ctx.provider.delete(id, ctx.opts()), `${what}: delete ${id}`);
      }
    },
  },
  {
    id: 'CREATE-26',
    group: 'create',
    title:
      'planned egress: a create cut off between its allocation and its instance, then retried, never duplicates an address',
    proves:
      'an allocation counts only once its instance records it: after a crash, another create may take the address, and the retry then gets another one or QuotaExceeded, by the same provider or a restarted one',
    gate: `${GATE}, freshProvider, backend.steps.define`,
    applies: (f) => {
      const a = appliesWith('define')(f);
      return a === true ? appliesWith('freshProvider')(f) : a;
    },
    timeoutMs: 30_000,
    async run(ctx) {
      const plan = planOf(ctx);
      const ids = await fill(ctx, capacity(ctx, plan) - 1);
      // One address is left: the cut-off create takes it, and the crash leaves no instance holding it.
      const cut = ctx.request();
      const gate = ctx.backend.block(ctx.backend.steps.define!);
      const abort = new AbortController();
      const pending = outcome(ctx.create(cut, ctx.opts(abort.signal)), 'the create held before its instance');
      await within(gate.reached, GATE_BOUND_MS, `the create never reached ${ctx.backend.steps.define}`);
      abort.abort();
      const first = await pending;
      gate.release();
      check(!first.ok, 'the create held before its instance succeeded although it was aborted');
      const other = ctx.request();
      const results = new Map<string, boolean>();
      await withFresh(ctx, async (fresh) => {
        const opts: CallOptions = ctx.opts();
        // Another create after the crash, by a restarted provider: the address is free for it.
        const o = await outcome(fresh.create(other, opts), `a restarted provider's create of ${other.name}`);
        if (o.ok) ctx.track(o.value);
        else expectExhausted(o.error, plan, `a restarted provider's create of ${other.name}`);
        results.set(other.name, o.ok);
        // The retry, by the provider that was cut off and by the restarted one.
        for (const [who, p] of [
          ['the provider that was cut off', ctx.provider],
          ['a restarted provider', fresh],
        ] as const) {
          const r = await outcome(p.create(cut, ctx.opts()), `${who}'s retry of ${cut.name}`);
          if (r.ok) ctx.track(r.value);
          else expectExhausted(r.error, plan, `${who}'s retry of ${cut.name} with the plan full`);
          results.set(cut.name, (results.get(cut.name) ?? false) || r.ok);
        }
      });
      const live = new Map(ids);
      for (const [name, created] of results) {
        if (created) live.set(name, (await ctx.backend.instances()).find((v) => v.name === name)!.id);
      }
      check(
        live.size === ids.size + 1,
        `after the crash, ${other.name} and the retry of ${cut.name} compete for one free address: exactly one must get it, ${live.size - ids.size} did`,
      );
      distinct(
        await egressByName(ctx, ctx.provider, live, plan, 'after the crash and retry'),
        'after the crash and retry',
      );
      // The loser gets the address once the winner is gone.
      const winner = results.get(cut.name) ? cut.name : other.name;
      const loser = winner === cut.name ? other : cut;
      await ok(ctx.provider.delete(live.get(winner)!, ctx.opts()), `delete ${winner}`);
      live.delete(winner);
      live.set(loser.name, await ok(ctx.create(loser), `${loser.name} once ${winner} is deleted`));
      distinct(
        await egressByName(ctx, ctx.provider, live, plan, 'after the winner is deleted'),
        'after the winner is deleted',
      );
    },
  },
  {
    id: 'CREATE-27',
    group: 'create',
    title: "planned egress: a deleted instance's address is free again",
    proves:
      'a full plan takes a new instance once one is deleted, and the new instance gets the address the deleted one held',
    gate: GATE,
    applies,
    async run(ctx) {
      const { plan, ids, held } = await fillPlan(ctx, 'with the plan full');
      const [gone, goneId] = [...ids][0]!;
      await ok(ctx.provider.delete(goneId, ctx.opts()), `delete ${gone}`);
      ids.delete(gone);
      const next = ctx.request();
      ids.set(next.name, await ok(ctx.create(next), `a create after ${gone} was deleted from the full plan`));
      const now = await egressByName(ctx, ctx.provider, ids, plan, `after ${gone} was deleted`);
      distinct(now, `after ${gone} was deleted`);
      // In each family the plan fills, the freed address was the only one left.
      families(plan).forEach((f, i) => {
        if (f.size !== BigInt(ids.size)) return;
        const got = now.get(next.name)![i];
        const freed = held.get(gone)![i];
        check(got === freed, `${next.name} got ${familyKey(f)} ${got}, not ${freed}, the only one free`);
      });
    },
  },
  {
    id: 'CREATE-28',
    group: 'create',
    title:
      'planned egress: a create on an exhausted plan is QuotaExceeded naming the plan, and leaves no instance',
    proves:
      'a full plan is reported as such (what a user can act on), not retried as Transient or refused as Permanent',
    gate: GATE,
    applies,
    async run(ctx) {
      const plan = planOf(ctx);
      await fill(ctx, capacity(ctx, plan));
      const extra = ctx.request();
      const err = await ctx.rejects(ctx.create(extra), 'a create on the full plan');
      expectExhausted(err, plan, 'a create on the full plan');
      const left = (await ctx.backend.instances()).filter((v) => v.name === extra.name);
      check(left.length === 0, `the refused create left ${left.length} instance(s) named ${extra.name}`);
    },
  },
  {
    id: 'CREATE-29',
    group: 'create',
    title:
      "planned egress: the seed's network-config (v2) puts the instance's addresses on its NIC, statically",
    proves:
      'the machine boots with the address the provider reports: version 2, one ethernet matched to the MAC of the NIC the backend holds, the planned addresses with their prefix length, no DHCP for a planned IPv4, a default route via the plan gateway per family, the plan DNS servers',
    gate: `${GATE}, backend.deliveredNetwork`,
    applies: appliesWith('deliveredNetwork'),
    async run(ctx) {
      const plan = planOf(ctx);
      const ids = await fill(ctx, Math.min(2, Number(sizeOf(plan))));
      for (const [name, id] of ids) {
        const inst = await ok(ctx.provider.get(id, ctx.opts()), `get ${name}`);
        const addresses = egressOf(inst, plan, `get ${name}`);
        const net = await ctx.backend.deliveredNetwork!(name, ctx.config.placement.zone);
        check(net.networkConfig !== undefined, `${name}: the backend received no network-config`);
        let doc: unknown;
        try {
          doc = JSON.parse(net.networkConfig);
        } catch {
          throw new ConformanceFailure(
            `${name}: the network-config is not JSON (the kit reads YAML's JSON form, which cloud-init reads too): ${net.networkConfig.slice(0, 80)}`,
          );
        }
        const cfg = doc as { version?: unknown; ethernets?: Record<string, Record<string, unknown>> };
        check(cfg.version === 2, `${name}: network-config version is ${JSON.stringify(cfg.version)}, not 2`);
        const nics = Object.entries(cfg.ethernets ?? {});
        check(
          nics.length === 1,
          `${name}: network-config has ${nics.length} ethernets, expected the one planned NIC`,
        );
        const [nicName, nic] = nics[0]!;
        const mac = String(
          (nic.match as { macaddress?: unknown } | undefined)?.macaddress ?? '',
        ).toLowerCase();
        const macs = net.macs.map((m) => m.toLowerCase());
        check(
          mac !== '' && macs.includes(mac),
          `${name}: ethernet ${nicName} matches MAC ${JSON.stringify(mac)}, but the instance's NICs are ${macs.join(', ') || 'none'}`,
        );
        const written = Array.isArray(nic.addresses) ? nic.addresses.map(String) : [];
        families(plan).forEach((f, i) => {
          const want = `${addresses[i]}/${f.prefixLength}`;
          check(
            written.some((w) => {
              const [a, len] = w.split('/');
              return (
                a !== undefined && canonicalAddress(a) === addresses[i] && Number(len) === f.prefixLength
              );
            }),
            `${name}: network-config addresses ${JSON.stringify(written)} lack ${want} (the instance's ${familyKey(f)})`,
          );
          // A default route is either v2's `gatewayN` key or a `routes` entry: both are valid v2,
          // and cloud-init's ifupdown renderer (Debian guests) honours only the first faithfully.
          const routes = Array.isArray(nic.routes) ? (nic.routes as { to?: unknown; via?: unknown }[]) : [];
          const dflt = f.family === 4 ? ['0.0.0.0/0', 'default'] : ['::/0', 'default'];
          const gatewayKey = f.family === 4 ? 'gateway4' : 'gateway6';
          const viaKey = nic[gatewayKey];
          check(
            (typeof viaKey === 'string' && canonicalAddress(viaKey) === f.gateway) ||
              routes.some(
                (r) =>
                  dflt.includes(String(r.to)) &&
                  typeof r.via === 'string' &&
                  canonicalAddress(r.via) === f.gateway,
              ),
            `${name}: network-config has no ${familyKey(f)} default route via ${f.gateway} (${gatewayKey} ${JSON.stringify(viaKey ?? null)}, routes ${JSON.stringify(routes)})`,
          );
        });
        if (plan.ipv4) check(nic.dhcp4 !== true, `${name}: network-config asks for DHCP on a planned IPv4`);
        const dns = ((nic.nameservers as { addresses?: unknown } | undefined)?.addresses ?? []) as unknown[];
        for (const ns of plan.nameservers) {
          check(
            dns.some((d) => typeof d === 'string' && canonicalAddress(d) === ns),
            `${name}: network-config nameservers ${JSON.stringify(dns)} lack the plan's ${ns}`,
          );
        }
      }
    },
  },
  {
    id: 'GET-18',
    group: 'get',
    title:
      'planned egress: a restarted provider reads each allocation back from the backend, and allocates around it',
    proves:
      'the allocation lives in the mark, not in memory: a second provider over the same backend reports the same egress from get and listByTag, and its own creates take other addresses',
    gate: `${GATE}, freshProvider`,
    applies: appliesWith('freshProvider'),
    async run(ctx) {
      const plan = planOf(ctx);
      // All but one address of a small plan taken, so the restarted provider's create must find the last.
      const size = sizeOf(plan);
      const ids = await fill(ctx, size > BigInt(MAX_FILL) ? 2 : Math.max(1, Number(size) - 1));
      const before = await egressByName(ctx, ctx.provider, ids, plan, 'by the provider that created them');
      await withFresh(ctx, async (fresh) => {
        const after = await egressByName(ctx, fresh, ids, plan, 'by a restarted provider');
        const listed = await ok(fresh.listByTag(ctx.opts()), "a restarted provider's listByTag");
        for (const [name, id] of ids) {
          check(
            after.get(name)!.join(' ') === before.get(name)!.join(' '),
            `a restarted provider's get reports ${after.get(name)!.join(' ')} for ${name}, created with ${before.get(name)!.join(' ')}`,
          );
          const inst = listed.find((i) => i.id === id);
          check(inst !== undefined, `a restarted provider's listByTag left out ${id}`);
          const got = egressOf(inst, plan, `a restarted provider's listByTag: ${name}`);
          check(
            got.join(' ') === before.get(name)!.join(' '),
            `a restarted provider's listByTag reports ${got.join(' ')} for ${name}, created with ${before.get(name)!.join(' ')}`,
          );
        }
        const next = ctx.request();
        const id = await ok(fresh.create(next, ctx.opts()), `a restarted provider's create of ${next.name}`);
        ctx.track(id);
        const all = new Map(ids).set(next.name, id);
        distinct(
          await egressByName(ctx, fresh, all, plan, "after a restarted provider's create"),
          "after a restarted provider's create",
        );
      });
    },
  },
  {
    id: 'OPS-21',
    group: 'operations',
    title: 'planned egress: no log line carries the plan beyond the addresses allocated',
    proves:
      "the plan's gateways, DNS servers, ranges, prefix and exclusions (the user's network layout) stay out of the log at the most verbose level, through creates, gets, a list, a refusal of the full plan (a small plan) and deletes",
    gate: GATE,
    applies,
    async run(ctx) {
      const plan = planOf(ctx);
      const e = ctx.config.egress!.plan;
      // A small plan is filled, so the refusal of the next create is logged too.
      const small = sizeOf(plan) <= BigInt(MAX_FILL);
      const ids = await fill(ctx, small ? Number(sizeOf(plan)) : 2);
      await egressByName(ctx, ctx.provider, ids, plan, 'after the creates');
      await ok(ctx.provider.listByTag(ctx.opts()), 'listByTag');
      if (small) await outcome(ctx.create(ctx.request()), 'a create on the full plan');
      for (const id of ids.values()) await ok(ctx.provider.delete(id, ctx.opts()), `delete ${id}`);
      const privateValues = new Set<string>([
        ...families(plan).map((f) => f.gateway),
        ...(e.ipv4 ? [e.ipv4.gateway, ...e.ipv4.ranges] : []),
        ...(e.ipv6 ? [e.ipv6.gateway, e.ipv6.prefix] : []),
        ...plan.nameservers,
        ...(e.nameservers ?? []),
        ...(e.exclude ?? []),
      ]);
      check(ctx.lines.length > 0, 'the provider logged nothing at verbosity 2');
      for (const line of ctx.lines) {
        const text = JSON.stringify(line);
        for (const v of privateValues) {
          check(!mentions(text, v), `a log line carries the plan's ${v}: ${text.slice(0, 300)}`);
        }
      }
    },
  },
];
