// What the gateway's listeners and handlers share: the live state, and the data path's context.
import type { Socket } from 'node:net';
import type { OpLogger } from '../domain/op-logger.js';
import type { ProxyUsers } from './basic-auth.js';
import { debugEnabled, type GatewayContext } from './gateway-context.js';
import { banSet, type GatewayOptions, rotateSetting } from './gateway-options.js';
import type { GatewayStats } from './gateway-stats.js';
import type { GatewayLimits } from './limits.js';
import { MemberTable } from './member-table.js';
import { isMemberFault } from './outcomes.js';
import type { memberAgent } from './plain-http.js';
import type { PoolDemand } from './pool-demand.js';
import type { RawHttp } from './raw-http.js';
import type { ClientIdentity } from './session.js';

/** What may change while the gateway serves: its users (a Secret update), the drain, open tunnels. */
export interface ServingState {
  users: ProxyUsers | undefined;
  draining: boolean;
  tunnels: number;
}

/** What the server's handlers share. */
export interface Serving {
  ctx: GatewayContext;
  /** The load for the autoscaler, and requests held while the pool wakes. */
  demand: PoolDemand;
  limits: Required<GatewayLimits>;
  state: ServingState;
  agent: ReturnType<typeof memberAgent>;
  /** The Basic auth challenge, naming the pool. */
  realm: string;
  /** Counts a new client connection against its address's cap; over it, `refuse` runs and it is false. */
  admitClient(s: Socket, refuse: () => void): boolean;
  /** The raw plain-HTTP path in front of the `http` server, when on. */
  raw?: RawHttp;
}

/** The member table, its cooldowns and recoveries counted and logged before the caller hears of them. */
export function observedMembers(opts: GatewayOptions, stats: GatewayStats, log: OpLogger): MemberTable {
  return new MemberTable({
    ...opts,
    onCooldown: (member, reason, until, origin, change) => {
      const s = stats.member(member);
      s.cooledDown = 1;
      // A later ban on a member already cooling down is no new cooldown: only its end moves.
      if (origin === 'local' && change === 'started') {
        stats.cooldown(member, reason);
        log.warn({ member, reason, until: new Date(until).toISOString() }, 'gateway: member cooled down');
      } else if (origin === 'local')
        log.debug(
          { member, reason, until: new Date(until).toISOString() },
          'gateway: member cooldown extended',
        );
      opts.onCooldown?.(member, reason, until, origin, change);
    },
    onRecover: (member) => {
      const s = stats.members.get(member);
      if (s) s.cooledDown = 0;
      opts.onRecover?.(member);
    },
  });
}

/** The context the plain-HTTP and CONNECT paths run with. */
export function dataPathContext(
  opts: GatewayOptions,
  members: MemberTable,
  stats: GatewayStats,
  log: OpLogger,
  state: ServingState,
): GatewayContext {
  const ctx: GatewayContext = {
    pool: opts.pool,
    members,
    stats,
    log,
    debug: debugEnabled(log),
    banStatuses: banSet(opts.banStatuses ?? [403, 429]),
    rotate: rotateSetting(opts.rotate ?? 'per-request'),
    pinned: new WeakMap(),
    connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    answerTimeoutMs: opts.answerTimeoutMs ?? 60_000,
    attempts: opts.connectAttempts ?? 2,
    sockets: new Set(),
    authorized: (id: ClientIdentity) => !state.users?.size || state.users.check(id.user, id.password),
    draining: () => state.draining,
    hold(member) {
      const s = stats.member(member);
      s.active++;
      const release = members.hold(member);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        s.active--;
        release();
      };
    },
    outcome(member, outcome, detail) {
      stats.failure(member, outcome);
      if (isMemberFault(outcome)) {
        log.warn({ member, reason: outcome, error: detail }, 'gateway: member failed');
        members.coolDown(member, outcome);
      } else if (ctx.debug)
        log.debug({ member, reason: outcome, error: detail }, 'gateway: connection ended');
    },
  };
  return ctx;
}
