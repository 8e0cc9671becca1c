#!/usr/bin/env node
// What the test run leaves on the host. `snapshot` records the host before the tests, `compare`
// lists what is new afterwards and still there: temp entries, daemons the suites started (VMs,
// Squid, API servers, sshd, operators), mounts, buildah containers, network links and namespaces,
// firewall rules, libvirt definitions and what tools write into the home directory. Every suite cleans up after itself, so anything listed is a leak (a
// killed VM's disk, a key left in a temp dir, a proxy still listening). Lock files are kept on
// purpose: every process on the machine agrees on their paths.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './workspace.mjs';

/** Daemons a suite may start; matched against the executable's base name. */
const DAEMONS =
  /^(qemu-system-.*|squid|kube-apiserver|etcd|kubelet|kube-proxy|kube-scheduler|kube-controller-manager|libvirtd|virtlogd|virtlockd|sshd|otelcol.*|dnsmasq|conmon)$/;

/** Temp entries that outlive a run by design: inter-process lock files and their slot dirs. */
const KEPT_TMP = /^(.*\.lock|egress-testenv-.*-slots)$/;

/**
 * Host state a tool the suites use creates once per boot, on its first use, and keeps until
 * reboot by design: not ours to remove, and nothing of a run inside. Matched exactly, so
 * anything below it (a namespace's nsfs mount at /run/netns/NAME) is still a leak.
 */
const PER_BOOT = [
  {
    kind: 'mounts',
    // "<source> <mount point> <type>": any source and type (/run is tmpfs on most machines, the
    // root filesystem on some), but exactly this mount point.
    test: (entry) => /^\S+ \/(var\/)?run\/netns \S+$/.test(entry),
    why: "iproute2's shared bind mount of its namespace directory, made by the first `ip netns add` since boot so that later namespaces propagate; it holds no namespace",
  },
];

function lines(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout.split('\n').filter((l) => l.trim() !== '');
}

function processes() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let argv;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue; // gone meanwhile
    }
    if (argv.length === 0) continue;
    const exe = argv[0].slice(argv[0].lastIndexOf('/') + 1);
    const operator =
      exe === 'node' &&
      argv.some(
        (a) => a.endsWith('apps/operator/dist/main.js') || a.endsWith('apps/operator/bin/egress-proxies.js'),
      );
    if (DAEMONS.test(exe) || operator) out.push(`${pid} ${argv.join(' ').slice(0, 200)}`);
  }
  return out;
}

/**
 * Where tools write into the home directory when a suite forgets to point them at its own temp
 * dir: kubectl's discovery cache (one directory per API server address, so every run adds one),
 * helm's cache and config, Chromium's profile and crash reports, ssh's known hosts.
 */
const HOME_SPOTS = ['.kube', '.cache/helm', '.config/helm', '.local/share/helm', '.config/chromium', '.ssh'];

function listTree(dir, out = [], limit = 2000) {
  if (!existsSync(dir) || out.length >= limit) return out;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (out.length >= limit) break;
    const path = join(dir, e.name);
    out.push(path);
    if (e.isDirectory()) listTree(path, out, limit);
  }
  return out;
}

function listDir(dir) {
  return existsSync(dir) ? readdirSync(dir).map((n) => join(dir, n)) : [];
}

function snapshot() {
  return {
    tmp: readdirSync(tmpdir()).filter((n) => !KEPT_TMP.test(n)),
    processes: processes(),
    mounts: readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').slice(0, 3).join(' ')),
    buildah: lines('buildah', ['containers', '--quiet', '--noheading']) ?? [],
    links: (lines('ip', ['-o', 'link', 'show']) ?? []).map((l) => l.split(':')[1]?.trim().split('@')[0] ?? l),
    netns: (lines('ip', ['netns', 'list']) ?? []).map((l) => l.split(' ')[0]),
    firewall: (lines('iptables-save', []) ?? []).filter((l) => /^-A /.test(l)),
    home: HOME_SPOTS.flatMap((spot) => {
      const path = join(homedir(), spot);
      return existsSync(path) ? [path, ...listTree(path)] : [];
    }),
    libvirt: [
      ...listDir('/etc/libvirt/qemu').filter((p) => p.endsWith('.xml')),
      ...listDir('/etc/libvirt/storage').filter((p) => p.endsWith('.xml')),
      ...listDir('/var/lib/libvirt/images'),
    ],
  };
}

/**
 * libvirt's daemons are shared by every suite that needs them and left up for the next one
 * (starting them costs seconds per suite); once the run is over, the ones it started are stopped,
 * libvirtd first so that it does not log its helpers' loss.
 */
const SHARED = ['libvirtd', 'virtlockd', 'virtlogd'];

async function stopSharedDaemons(had) {
  const existing = new Set(had);
  for (const name of SHARED) {
    for (const line of processes()) {
      const [pid, exe] = line.split(' ');
      if (existing.has(line) || exe.slice(exe.lastIndexOf('/') + 1) !== name) continue;
      const alive = () => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readStatus(pid));
      try {
        process.kill(Number(pid), 'SIGTERM');
      } catch {
        continue;
      }
      for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive()) process.kill(Number(pid), 'SIGKILL');
      console.log(`host residue: stopped ${name} (pid ${pid}), started by the run for its suites`);
    }
  }
}

function readStatus(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

// `--report=PATH` and `--keep-daemons` let a test run the check on a scratch snapshot without
// touching the run's report or the daemons other suites share.
const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const [mode, file = join(root, '.test-results', 'host-before.json')] = args.filter(
  (a) => !a.startsWith('--'),
);
const report =
  flags.find((f) => f.startsWith('--report='))?.slice('--report='.length) ??
  join(root, '.test-results', 'host-residue.json');
if (mode === 'snapshot') {
  mkdirSync(join(root, '.test-results'), { recursive: true });
  writeFileSync(file, JSON.stringify(snapshot()));
} else if (mode === 'compare') {
  const before = JSON.parse(readFileSync(file, 'utf8'));
  if (!flags.includes('--keep-daemons')) await stopSharedDaemons(before.processes);
  const after = snapshot();
  // A process is the same one only with the same PID and command line; a PID reused is new.
  const problems = [];
  const perBoot = [];
  let passed = 0;
  for (const [what, items] of Object.entries(after)) {
    const had = new Set(before[what] ?? []);
    const added = [];
    for (const i of items.filter((i) => !had.has(i))) {
      const known = PER_BOOT.find((k) => k.kind === what && k.test(i));
      if (known) perBoot.push(`${what}: ${i} (${known.why})`);
      else added.push(i);
    }
    if (added.length === 0) {
      passed += 1;
      continue;
    }
    problems.push(`${what}: ${added.length} left by the run: ${added.slice(0, 50).join(', ')}`);
  }
  for (const p of perBoot) console.log(`host residue: kept, per boot and not the run's: ${p}`);
  for (const p of problems) console.log(`host residue: ${p}`);
  if (problems.length === 0) console.log(`host residue: none (${passed} kinds checked)`);
  writeFileSync(report, JSON.stringify({ passed, failed: problems.length, problems, perBoot }));
} else {
  console.error(
    `usage: node scripts/host-residue.mjs snapshot|compare [FILE] [--report=PATH] [--keep-daemons]   (got ${JSON.stringify(mode)})`,
  );
  process.exit(2);
}
