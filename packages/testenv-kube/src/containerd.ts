import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '@egress-proxies/testenv-libvirt';
import { cniConfig, containerdConfig } from './node-config.js';
import { type Daemon, startDaemon, waitUntil } from './process.js';

export interface Containerd {
  socket: string;
  daemon: Daemon;
  /** `ctr --address <socket> -n k8s.io <args>`; rejects with ctr's stderr. */
  ctr(args: string[]): Promise<string>;
  /** Imports an OCI archive (unpacked for overlayfs) under each of `names`. */
  importImage(image: { archive: string; names: string[] }): Promise<void>;
  stop(): Promise<void>;
}

const READY_MS = 60_000;
const IMPORT_MS = 15 * 60_000;
const IMPORT_ATTEMPTS = 3;

/**
 * containerd 1.6 can lose a blob an import has just written (the archive's index, which
 * `--index-name` stores) to the garbage collection a new daemon runs right after it starts: ctr
 * then fails with `content digest sha256:...: not found` for a digest the archive holds. Seen once
 * in CI on a cluster's first import. An import is idempotent, so that one error is retried; any
 * other error is thrown at once.
 */
export async function importWithRetry(
  attempt: () => Promise<unknown>,
  attempts = IMPORT_ATTEMPTS,
  pauseMs = 500,
): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await attempt();
      return;
    } catch (err) {
      const lost = /content digest sha256:[0-9a-f]{64}: not found/.test((err as Error).message);
      if (!lost || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
}

/**
 * The node's containerd (the Debian package), with its root, state, socket and CNI config under
 * `dir`, started where `wrap` puts it (the node's namespaces).
 */
export async function startContainerd(o: {
  dir: string;
  wrap: (bin: string, args: string[]) => [string, string[]];
  signal?: AbortSignal;
}): Promise<Containerd> {
  const d = {
    containerdRoot: join(o.dir, 'root'),
    containerdState: join(o.dir, 'state'),
    containerdSocket: join(o.dir, 'containerd.sock'),
    cniConfDir: join(o.dir, 'net.d'),
    ipamDir: join(o.dir, 'ipam'),
  };
  for (const p of [d.containerdRoot, d.containerdState, d.cniConfDir, d.ipamDir])
    mkdirSync(p, { recursive: true });
  writeFileSync(join(d.cniConfDir, '10-ep-pods.conflist'), cniConfig(d.ipamDir));
  const config = join(o.dir, 'config.toml');
  writeFileSync(config, containerdConfig(d));
  const daemon = startDaemon(
    'containerd',
    ...o.wrap('containerd', ['--config', config]),
    join(o.dir, 'containerd.log'),
  );
  const ctr = async (args: string[], timeoutMs = 60_000) => {
    const r = await run('ctr', ['--address', d.containerdSocket, '--namespace', 'k8s.io', ...args], {
      timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (r.code !== 0) throw new Error(`ctr ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  };
  try {
    await waitUntil(
      'its socket to answer',
      daemon,
      () => ctr(['version'], 5_000).then(() => true),
      READY_MS,
      o.signal,
    );
  } catch (err) {
    await daemon.stop();
    throw new Error(
      `containerd did not start (is the Debian containerd package installed?): ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return {
    socket: d.containerdSocket,
    daemon,
    ctr: (args) => ctr(args),
    async importImage(image) {
      const [first, ...rest] = image.names;
      if (!first) throw new Error(`importImage: no name given for ${image.archive}`);
      await importWithRetry(() => ctr(['images', 'import', '--index-name', first, image.archive], IMPORT_MS));
      if (rest.length) await ctr(['images', 'tag', '--force', first, ...rest]);
    },
    stop: () => daemon.stop(),
  };
}
