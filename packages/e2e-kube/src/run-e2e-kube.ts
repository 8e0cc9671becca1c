import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureControlPlaneBinaries, ensureGoTool, runBuildScript } from '@egress-proxies/testenv-kube';
import { ensurePackages, run } from '@egress-proxies/testenv-libvirt';
import { E2E_KUBE_ENV_VAR, type E2eKubeEnv } from './e2e-kube-env.js';
import { type KubeTimings, updateKubeReport } from './report.js';

export interface RunE2eKubeOptions {
  /** This package's directory (vitest runs here). */
  packageDir: string;
  /** docs/e2e.md, updated with the measurements when the run passes. */
  reportPath?: string;
  vitestArgs?: string[];
  log?: (line: string) => void;
}

/** What the node needs from Debian (the CI script installs the same list). */
export const NODE_PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'conntrack',
  'iptables',
  'buildah',
  'debootstrap',
  'curl',
  'iproute2',
  'util-linux',
];

async function timed<T>(what: string, log: (l: string) => void, f: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const v = await f();
  const s = (performance.now() - started) / 1000;
  log(`${what}: ready in ${s.toFixed(1)} s`);
  return [v, s];
}

/**
 * The cluster end-to-end run: builds (or finds cached) every binary and image the cluster and
 * the scenario need, runs the vitest scenario, then checks that the cluster left nothing behind
 * (network namespace, cgroups, directories) and on success writes the times into docs/e2e.md.
 */
export async function runE2eKube(o: RunE2eKubeOptions): Promise<number> {
  const log = o.log ?? ((l: string) => process.stderr.write(`[e2e-kube] ${l}\n`));
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    log('FAILED: the cluster run needs root (network namespaces, containerd, cgroups)');
    return 1;
  }
  const installed = await ensurePackages(NODE_PACKAGES);
  if (installed.installed.length > 0) log(`installed: ${installed.installed.join(' ')}`);
  const build: KubeTimings['build'] = {};
  // Go builds are CPU-bound, image builds mostly wait on the mirror and the disk: side by side.
  const go = (async () => {
    [, build.controlPlane] = await timed('etcd and kube-apiserver', log, () => ensureControlPlaneBinaries());
    const [kubeNode, s0] = await timed(
      'kubelet, kube-proxy, scheduler, controller manager, kubectl',
      log,
      () => ensureGoTool('kube-node'),
    );
    build.kubeNode = s0;
    [, build.collector] = await timed('OpenTelemetry Collector', log, () => ensureGoTool('otelcol'));
    const [helm, s] = await timed('helm', log, () =>
      runBuildScript('apps/operator/scripts/ensure-helm.sh', [], 'building helm from its Go module'),
    );
    build.helm = s;
    return { helm, kubectl: [kubeNode, 'kubectl'] };
  })();
  const images = (async () => {
    const [squid, s1] = await timed('Squid image', log, () =>
      runBuildScript('tools/squid-image/build.sh', [], 'building the Squid image'),
    );
    const [operator, s2] = await timed('operator image', log, () =>
      runBuildScript('tools/operator-image/build.sh', [], 'building the operator image'),
    );
    build.squidImage = s1;
    build.operatorImage = s2;
    return { squid, operator };
  })();
  const [{ helm, kubectl }, archives] = await Promise.all([go, images]);

  const results = join(o.packageDir, '.test-results');
  rmSync(join(results, 'vitest.json'), { force: true });
  const workDir = join(results, 'e2e-kube-work');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const env: E2eKubeEnv = {
    images: archives,
    helm,
    kubectl,
    workDir,
    timingsOut: join(workDir, 'timings.json'),
  };
  const vitest = join(
    dirname(createRequire(join(o.packageDir, 'package.json')).resolve('vitest/package.json')),
    'vitest.mjs',
  );
  const checks = { passed: 0, failed: 0, problems: [] as string[] };
  const check = (ok: boolean, problem: string) => {
    if (ok) checks.passed += 1;
    else {
      checks.failed += 1;
      checks.problems.push(problem);
      log(`FAILED: ${problem}`);
    }
  };
  let childPid = 0;
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...(o.vitestArgs ?? [])], {
      cwd: o.packageDir,
      stdio: 'inherit',
      env: { ...process.env, [E2E_KUBE_ENV_VAR]: JSON.stringify(env) },
    });
    childPid = child.pid ?? 0;
    child.on('error', (e) => {
      log(`FAILED: cannot start vitest: ${e.message}`);
      resolve(1);
    });
    child.on('exit', (c, sig) => resolve(sig ? 1 : (c ?? 1)));
  });
  // Whatever the scenario asserted, the cluster it started must be gone without a trace.
  const mine = (name: string) => name.startsWith(`ep-${childPid}-kube`);
  const netns = (await run('ip', ['netns', 'list'])).stdout
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter(mine);
  check(netns.length === 0, `network namespaces were left: ${netns.join(', ')}`);
  const cgroups = existsSync('/sys/fs/cgroup/memory')
    ? readdirSync('/sys/fs/cgroup/memory').filter(mine)
    : [];
  check(cgroups.length === 0, `cgroup roots were left: ${cgroups.join(', ')}`);
  const dirs = readdirSync(tmpdir()).filter(mine);
  check(dirs.length === 0, `directories were left in ${tmpdir()}: ${dirs.join(', ')}`);
  if (code === 0 && o.reportPath && existsSync(env.timingsOut)) {
    const t = JSON.parse(readFileSync(env.timingsOut, 'utf8')) as KubeTimings;
    updateKubeReport(o.reportPath, { ...t, build });
    log(`measurements written to ${o.reportPath}`);
  }
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'runner.json'), `${JSON.stringify(checks, null, 2)}\n`);
  return checks.failed > 0 ? 1 : code;
}
