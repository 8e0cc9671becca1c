import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ensureControlPlaneBinaries, ensureGoTool } from '@egress-proxies/testenv-kube';
import { ensurePackages, REQUIRED_PACKAGES } from '@egress-proxies/testenv-libvirt';
import {
  acquireBootSlot,
  type BootSlot,
  ensureProxyImage,
  findProxyImageTools,
  type NetnsHypervisor,
  proxyImageDir,
  startNetnsHypervisor,
  UPSTREAM,
} from '@egress-proxies/testenv-vm';
import { E2E_ENV_VAR, type E2eEnv } from './e2e-env.js';
import { type E2eTimings, updateReport } from './report.js';

export interface RunE2eOptions {
  /** This package's directory (vitest runs here). */
  packageDir: string;
  /** docs/e2e.md, updated with the measurements when the run passes. */
  reportPath?: string;
  /** The command named in the report. */
  command?: string;
  vitestArgs?: string[];
  log?: (line: string) => void;
}

function resolveFrom(dir: string, spec: string): string {
  return createRequire(join(dir, 'package.json')).resolve(spec);
}

/**
 * The end-to-end run: makes sure the proxy image is built (outside the namespace: debootstrap
 * needs the Debian mirror), starts the namespaced hypervisor, runs the test suite inside the
 * namespace, and tears everything down. Fails loudly when the machine cannot host it.
 */
export async function runE2e(o: RunE2eOptions): Promise<number> {
  const log = o.log ?? ((l: string) => process.stderr.write(`[e2e] ${l}\n`));
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    log('FAILED: the end-to-end run needs root (network namespaces, a private libvirtd)');
    return 1;
  }
  // As root on Debian, what the namespace, the daemons and the checks need is installed first.
  const installed = await ensurePackages([
    ...REQUIRED_PACKAGES,
    'dnsmasq-base',
    'iproute2',
    'util-linux',
    'curl',
    // bsdtar reads the seed ISOs' network-config.
    'libarchive-tools',
  ]);
  if (installed.installed.length > 0) log(`installed: ${installed.installed.join(' ')}`);
  const tools = findProxyImageTools();
  const cached = existsSync(join(await proxyImageDir(tools), 'proxy.qcow2'));
  const buildStarted = performance.now();
  log(cached ? 'proxy image: cached' : 'proxy image: building (debootstrap; a few minutes)');
  const image = await ensureProxyImage({ toolsDir: tools, onLog: (l) => log(`image: ${l}`) });
  const buildSeconds = cached ? undefined : (performance.now() - buildStarted) / 1000;

  // Built outside the namespace too: a cold machine fetches Go modules for them.
  log('control plane binaries (etcd, kube-apiserver) and the trace collector: checking the cache');
  await ensureControlPlaneBinaries();
  await ensureGoTool('otelcol');

  const operatorMain = join(
    dirname(resolveFrom(o.packageDir, '@egress-proxies/operator/package.json')),
    'dist',
    'main.js',
  );
  if (!existsSync(operatorMain)) {
    log(`FAILED: ${operatorMain} is missing; build the workspace first`);
    return 1;
  }
  const vitest = join(dirname(resolveFrom(o.packageDir, 'vitest/package.json')), 'vitest.mjs');

  // What this run checks outside vitest, for the workspace summary (a stale report must not count).
  const results = join(o.packageDir, '.test-results');
  rmSync(join(results, 'vitest.json'), { force: true });
  const checks = { passed: 0, failed: 0, problems: [] as string[] };
  const check = (ok: boolean, problem: string) => {
    if (ok) checks.passed += 1;
    else {
      checks.failed += 1;
      checks.problems.push(problem);
      log(`FAILED: ${problem}`);
    }
  };

  let hv: NetnsHypervisor | undefined;
  let slot: BootSlot | undefined;
  let code = 1;
  try {
    // The run boots TCG guests one after another: it holds the machine's guest-boot slot
    // throughout, so the VM image's own boot test (or another worktree's run) never boots beside it.
    const queued = performance.now();
    slot = await acquireBootSlot({
      holder: 'e2e-vm run',
      onWait: (holders) => log(`waiting for a guest boot slot, held by: ${holders.join('; ')}`),
    });
    log(`guest boot slot ${slot.index} taken after ${Math.round((performance.now() - queued) / 1000)}s`);
    // With the routed upstream: the egress plan's block and prefix are routed to the bridge, and
    // an echo server behind the router sees where planned guests leave from.
    hv = await startNetnsHypervisor({ tag: 'e2e', routedUpstream: true });
    const upstream = hv.upstream;
    if (!upstream) throw new Error('the routed upstream did not start');
    log(
      `namespace ${hv.netns}: bridge ${hv.bridge} ${hv.gateway}/24, private libvirtd at ${hv.libvirt.socketPath}`,
    );
    const workDir = join(hv.dir, 'work');
    mkdirSync(workDir, { recursive: true });
    const env: E2eEnv = {
      netns: hv.netns,
      bridge: hv.bridge,
      gateway: hv.gateway,
      cidr: hv.cidr,
      libvirtSocket: hv.libvirt.socketPath,
      libvirtUri: hv.libvirt.uri,
      pool: hv.pool.name,
      poolPath: hv.pool.path,
      image: { path: image.path, sha256: image.sha256, sizeBytes: image.sizeBytes },
      leasesPath: join(hv.dir, 'dnsmasq.leases'),
      operatorMain,
      timingsOut: join(hv.dir, 'timings.json'),
      upstream: {
        echoUrl4: upstream.echoUrl4,
        echoUrl6: upstream.echoUrl6,
        echoLog: upstream.echoLogPath,
        ipv4Block: UPSTREAM.ipv4Block,
        ipv4Gateway: UPSTREAM.ipv4Gateway,
        ipv6Prefix: UPSTREAM.ipv6Prefix,
        ipv6Gateway: UPSTREAM.ipv6Gateway,
      },
      workDir,
    };
    const [cmd, args] = hv.inNetns(process.execPath, [vitest, 'run', ...(o.vitestArgs ?? [])]);
    code = await new Promise<number>((resolve) => {
      const child = spawn(cmd, args, {
        cwd: o.packageDir,
        stdio: 'inherit',
        env: { ...process.env, [E2E_ENV_VAR]: JSON.stringify(env) },
      });
      child.on('error', (e) => {
        log(`FAILED: cannot start vitest in the namespace: ${e.message}`);
        resolve(1);
      });
      child.on('exit', (c, sig) => resolve(sig ? 1 : (c ?? 1)));
    });
    if (code === 0 && o.reportPath && existsSync(env.timingsOut)) {
      const t = JSON.parse(readFileSync(env.timingsOut, 'utf8')) as E2eTimings;
      if (buildSeconds !== undefined) t.image = { ...t.image, buildSeconds, rebuilt: true };
      else if (image.build)
        t.image = { ...t.image, buildSeconds: image.build.seconds, builtAt: image.build.finishedAt };
      updateReport(o.reportPath, t, o.command ?? 'pnpm e2e:vm');
      log(`measurements written to ${o.reportPath}`);
    }
  } finally {
    if (hv) {
      // Whatever the test asserted, a per-Proxy volume left in the pool is a leak.
      const vols = await hv
        .virsh('vol-list', hv.pool.name)
        .catch((e: Error) => `(cannot list: ${e.message})`);
      const leaked = vols
        .split('\n')
        .slice(2)
        .map((l) => l.trim().split(/\s+/)[0] ?? '')
        .filter((v) => v.length > 0 && !v.startsWith('base-'));
      check(leaked.length === 0, `volumes were left in the pool: ${leaked.join(', ')}`);
    }
    if (code !== 0 && hv) keepLogs(hv.dir, join(o.packageDir, '.test-results', 'e2e-logs'), log);
    let left: string[] = [];
    try {
      left = (await hv?.teardown()) ?? [];
      if (hv) check(true, '');
    } catch (e) {
      check(false, `teardown failed: ${(e as Error).message}`);
    }
    if (hv) check(left.length === 0, `domains were left behind (destroyed by teardown): ${left.join(', ')}`);
    await slot?.release();
    mkdirSync(results, { recursive: true });
    writeFileSync(join(results, 'runner.json'), `${JSON.stringify(checks, null, 2)}\n`);
  }
  return checks.failed > 0 ? 1 : code;
}

/** Copies the run's logs out of the env's directory (removed by teardown) for a failed run. */
function keepLogs(from: string, to: string, log: (l: string) => void): void {
  rmSync(to, { recursive: true, force: true });
  // Logs and config only: not the pool's volumes, not the daemons' sockets, not the SSH keys.
  const skipped = [join(from, 'pool'), join(from, 'work', 'ssh')];
  const wanted = (src: string) => {
    if (skipped.some((s) => src.startsWith(s))) return false;
    try {
      return !lstatSync(src).isSocket();
    } catch {
      return false;
    }
  };
  try {
    cpSync(from, to, { recursive: true, filter: wanted });
    log(`logs of the failed run kept in ${to}`);
  } catch (e) {
    log(`could not keep the logs: ${(e as Error).message}`);
  }
}
