import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The local provider's state directory as the backend of a suite that runs the operator in other
 * processes, seen from outside the provider: its providers-file entry, the instances it recorded
 * and the detached proxy processes it runs. The processes are found by their working directory,
 * so those a killed operator left behind count too.
 */
export class LocalBackend {
  constructor(readonly stateDir: string) {}

  /** The providers-file entry of the local provider (node engine) over this state directory. */
  providerEntry(portRange: { min: number; max: number }): Record<string, unknown> {
    return { name: 'local', type: 'local', local: { stateDir: this.stateDir, portRange, engine: 'node' } };
  }

  /** The instances the provider recorded, by name, with the pid each record holds (if any). */
  records(): Map<string, number | undefined> {
    const out = new Map<string, number | undefined>();
    const instances = join(this.stateDir, 'instances');
    if (!existsSync(instances)) return out;
    for (const f of readdirSync(instances).filter((n) => n.endsWith('.json'))) {
      const rec = JSON.parse(readFileSync(join(instances, f), 'utf8')) as { pid?: number };
      out.set(f.replace(/\.json$/, ''), rec.pid || undefined);
    }
    return out;
  }

  /** The proxy processes running in this state directory, by instance name. */
  processes(): Map<string, number[]> {
    const runtime = join(this.stateDir, 'run');
    const out = new Map<string, number[]>();
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      let cwd: string;
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        continue; // gone already, or not ours to read
      }
      if (!cwd.startsWith(`${runtime}/`)) continue;
      const name = cwd.slice(runtime.length + 1);
      out.set(name, [...(out.get(name) ?? []), Number(pid)]);
    }
    return out;
  }

  /** Ends every proxy process of this state directory: they are detached, nothing else ends them. */
  kill(): void {
    for (const pids of this.processes().values()) {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
  }
}
