import { stat } from 'node:fs/promises';
import { type CloudInitProgress, progressFromCat, STATUS_JSON } from './cloud-init-status.js';
import { TestEnvVmError } from './errors.js';
import type { GuestAgent } from './guest-agent.js';
import { waitWithProgress } from './progress-wait.js';
import { tailFile } from './serial-log.js';

export interface GuestWaitOptions {
  /** Fails when the guest shows no progress (serial console output, cloud-init stages) this long. Default 5 minutes. */
  idleTimeoutMs?: number;
  /** Fails after this long regardless. Default 30 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WaitTarget {
  agent: GuestAgent;
  serialLog: string;
  /** Why the guest can no longer answer (QEMU exited), or undefined while it runs. */
  gone(): Promise<string | undefined>;
}

const IDLE_MS = 5 * 60_000;
const TOTAL_MS = 30 * 60_000;
const AGENT_STEP_MS = 10_000;

const consoleSize = (path: string) =>
  stat(path).then(
    (s) => s.size,
    () => 0,
  );

function limits(w: GuestWaitOptions) {
  return { idleTimeoutMs: w.idleTimeoutMs ?? IDLE_MS, timeoutMs: w.timeoutMs ?? TOTAL_MS, signal: w.signal };
}

// An exited QEMU is final: it ends a wait at once instead of running it into a timeout.
const exited = (e: unknown) => TestEnvVmError.isInstance(e) && e.code === 'VM_EXITED';

async function stillThere(t: WaitTarget): Promise<void> {
  const why = await t.gone();
  if (why !== undefined) {
    throw new TestEnvVmError('VM_EXITED', `${why}\nserial console tail:\n${await tailFile(t.serialLog)}`);
  }
}

/** Until the agent answers guest-ping; the console growing counts as progress. */
export function waitForAgentWithProgress(t: WaitTarget, w: GuestWaitOptions = {}): Promise<true> {
  return waitWithProgress({
    what: 'the guest agent to answer',
    ...limits(w),
    attempt: async () => {
      await stillThere(t);
      await t.agent.ping({ signal: w.signal, timeoutMs: AGENT_STEP_MS });
      return true as const;
    },
    fatal: exited,
    progress: () => consoleSize(t.serialLog),
    explain: async () => `serial console tail:\n${await tailFile(t.serialLog)}`,
  });
}

/**
 * Until cloud-init has run all its stages, read from status.json through the agent (structured
 * stage records, not `cloud-init status` text). A new stage starting or finishing, or console
 * output, counts as progress; a TCG guest on a busy host may take many minutes and still be fine.
 */
export async function waitForCloudInitWithProgress(
  t: WaitTarget,
  w: GuestWaitOptions = {},
): Promise<CloudInitProgress> {
  let seen = '';
  return waitWithProgress({
    what: 'cloud-init to finish',
    ...limits(w),
    attempt: async () => {
      await stillThere(t);
      const r = await t.agent.exec('/bin/cat', [STATUS_JSON], { signal: w.signal, timeoutMs: 60_000 });
      seen = r.stdout;
      const p = progressFromCat(r);
      return p?.done ? p : undefined;
    },
    fatal: exited,
    progress: async () => `${await consoleSize(t.serialLog)} ${seen}`,
    explain: async () =>
      `last ${STATUS_JSON}: ${seen || '(none)'}\nserial console tail:\n${await tailFile(t.serialLog)}`,
  });
}
