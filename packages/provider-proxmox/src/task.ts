import { ErrorCode, transientError } from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import { ApiError, TaskError, taskType, upidNode } from './api-error.js';
import type { VmConfig } from './backend.js';
import type { Context } from './context.js';
import { ProxmoxErrorCode } from './errors.js';

/**
 * Polls a task to its end through its UPID (reference §9). `OK` and `WARNINGS: n` succeed; any
 * other exitstatus is a TaskError carrying it. A task still running after `budgetMs` is
 * Transient: the task itself keeps running on the node.
 */
export async function waitTask(
  ctx: Context,
  upid: string | null,
  budgetMs = ctx.budgets.taskMs,
): Promise<void> {
  if (!upid) return; // a `delay`ed delete that already finished answers null (§10)
  const node = upidNode(upid);
  if (!node)
    throw transientError(`unparsable UPID ${JSON.stringify(upid)}`, { code: ErrorCode.BackendError });
  const deadline = ctx.now() + budgetMs;
  for (;;) {
    let st: Awaited<ReturnType<typeof ctx.api.taskStatus>>;
    try {
      st = await ctx.api.taskStatus(ctx.signal, node, upid);
    } catch (err) {
      // A task can be unknown for a moment right after it was forked (§9: `no such task`, 400);
      // it is polled again within the budget instead of failing the call as Permanent.
      const unknown = ApiError.isInstance(err) && err.status === 400 && /no such task/.test(err.text);
      if (!unknown) throw err;
      if (ctx.now() >= deadline) {
        throw transientError(`task ${upid} is unknown to node ${node}`, {
          code: ErrorCode.BackendError,
          cause: err,
        });
      }
      await sleep(ctx.budgets.pollMs, ctx.signal);
      continue;
    }
    if (st.status === 'stopped') {
      const exit = st.exitstatus ?? 'unexpected status';
      if (exit === 'OK' || exit.startsWith('WARNINGS')) return;
      ctx.logger.log(1, 'proxmox task failed', { upid, node, exitstatus: exit });
      throw new TaskError(upid, exit);
    }
    if (ctx.now() >= deadline) {
      throw transientError(
        `task ${taskType(upid)} on node ${node} still running after ${Math.round(budgetMs / 1000)} s (${upid})`,
        { code: ErrorCode.Timeout },
      );
    }
    await sleep(ctx.budgets.pollMs, ctx.signal);
  }
}

/**
 * Reads the VM's config once no lock other than `suspended` is on it (a hibernated VM keeps that
 * one, reference §12). Any lock but `clone` is waited on for `lockWaitMs`.
 *
 * A `clone` lock is judged by the node's own task list, so a restarted provider judges it alike:
 * with no clone task running on the node nothing will remove it, and it is reported stuck with the
 * `qm unlock` advice at once; while clone tasks run, it is waited on (or, with `waitOnClone:
 * false`, answered BUSY) until even the newest of them started `cloneMs` ago.
 */
export async function waitUnlocked(
  ctx: Context,
  node: string,
  vmid: number,
  o: { waitOnClone?: boolean } = {},
): Promise<VmConfig> {
  const start = ctx.now();
  for (;;) {
    const cfg = await ctx.api.vmConfig(ctx.signal, node, vmid);
    const lock = typeof cfg.lock === 'string' ? cfg.lock : undefined;
    if (!lock || lock === 'suspended') return cfg;
    const now = ctx.now();
    if (lock === 'clone') {
      const since = await cloneRunningSince(ctx, node);
      if (since === undefined) {
        // The clone may have ended between the two reads: only a lock still there is stuck.
        const again = await ctx.api.vmConfig(ctx.signal, node, vmid);
        if (again.lock !== 'clone') continue;
        throw cloneLockStuck(vmid, node, 'no clone task runs on the node');
      }
      if (now - since >= ctx.budgets.cloneMs) {
        throw cloneLockStuck(
          vmid,
          node,
          `the newest clone task on the node started ${Math.round((now - since) / 1000)} s ago, past the clone budget of ${Math.round(ctx.budgets.cloneMs / 1000)} s`,
        );
      }
      if (o.waitOnClone === false) {
        // Someone else's clone (an earlier attempt's): waiting here would hold the caller's
        // per-name lock for minutes, and a delete of the same name would wait behind it.
        throw transientError(`VM ${vmid} on node ${node} is being cloned (lock 'clone'); retry later`, {
          code: ErrorCode.Busy,
          details: { vmid, node, lock },
        });
      }
    } else if (now - start >= ctx.budgets.lockWaitMs) {
      throw transientError(`VM ${vmid} on node ${node} is locked (${lock})`, {
        code: ErrorCode.Busy,
        details: { vmid, node, lock },
      });
    }
    await sleep(ctx.budgets.pollMs, ctx.signal);
  }
}

/**
 * When the newest clone task running on `node` started (epoch ms, the node's clock), or
 * undefined when none runs. A clone task's id is its source VMID, not the new one (§3), so the
 * holder of a given VM's lock cannot be told apart: the newest start is the latest it can have.
 */
async function cloneRunningSince(ctx: Context, node: string): Promise<number | undefined> {
  const tasks = await ctx.api.activeTasks(ctx.signal, node, 'qmclone');
  const starts = tasks
    .filter((t) => t.type === 'qmclone' && t.status === 'RUNNING' && t.endtime === undefined)
    .map((t) => t.starttime * 1000);
  return starts.length ? Math.max(...starts) : undefined;
}

function cloneLockStuck(vmid: number, node: string, why: string) {
  return transientError(
    `VM ${vmid} on node ${node} carries lock 'clone' and ${why}; if no clone task is running for it, clear the lock with 'qm unlock ${vmid}' on node ${node}`,
    { code: ProxmoxErrorCode.CloneLockStuck, details: { vmid, node, lock: 'clone' } },
  );
}

/** Polls the VM's status until `running`; Transient on expiry or when it stopped again. */
export async function waitRunning(ctx: Context, node: string, vmid: number): Promise<void> {
  const deadline = ctx.now() + ctx.budgets.runningMs;
  for (;;) {
    const st = await ctx.api.vmStatus(ctx.signal, node, vmid);
    if (st.status === 'running') return;
    if (st.status === 'stopped')
      throw transientError(`VM ${vmid} on node ${node} stopped right after its start`, {
        code: ErrorCode.BackendError,
      });
    if (ctx.now() >= deadline) {
      throw transientError(
        `VM ${vmid} on node ${node} not running after ${Math.round(ctx.budgets.runningMs / 1000)} s (status ${st.status})`,
        { code: ErrorCode.Timeout },
      );
    }
    await sleep(ctx.budgets.pollMs, ctx.signal);
  }
}
