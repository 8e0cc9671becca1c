import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The run's host-residue check (scripts/host-residue.mjs) against what this package's network
// namespaces do to the host: the first `ip netns add` since boot bind-mounts /run/netns on itself
// (iproute2's shared mount), which stays until reboot and is not a leak of the run.
const script = fileURLToPath(new URL('../../../scripts/host-residue.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ep-residue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('host residue check and named network namespaces', () => {
  it('keeps iproute2 per-boot /run/netns mount apart from real leaks', { timeout: 300_000 }, () => {
    const before = join(dir, 'before.json');
    const report = join(dir, 'report.json');
    const leak = join(dir, 'leak');
    mkdirSync(leak);
    const name = `ep-residue-${process.pid}`;
    // A private mount namespace without /run/netns mounted: the host as before its first named
    // namespace, whatever this machine has done since boot, and nothing here reaches the host's
    // mount table. Between the snapshot and the compare: a namespace added and deleted (the
    // per-boot mount stays) and a tmpfs left mounted (a leak the check must still name).
    const r = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-euc',
        [
          'umount -l /run/netns 2>/dev/null || true',
          `! grep -q ' /run/netns ' /proc/mounts`,
          `"${process.execPath}" "${script}" snapshot "${before}"`,
          `ip netns add ${name}`,
          `ip netns del ${name}`,
          `grep -q ' /run/netns ' /proc/mounts`,
          `mount -t tmpfs ep-residue-leak "${leak}"`,
          `"${process.execPath}" "${script}" compare "${before}" --report="${report}" --keep-daemons`,
        ].join('\n'),
      ],
      { encoding: 'utf8', timeout: 240_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const out = JSON.parse(readFileSync(report, 'utf8')) as { problems: string[]; perBoot: string[] };
    // Other suites may start processes or links meanwhile; mounts are this namespace's alone.
    const mounts = out.problems.filter((p) => p.startsWith('mounts:'));
    expect(mounts).toEqual([`mounts: 1 left by the run: ep-residue-leak ${leak} tmpfs`]);
    expect(out.perBoot).toHaveLength(1);
    expect(out.perBoot[0]).toMatch(/^mounts: \S+ \/run\/netns \S+ \(iproute2's shared bind mount/);
  });
});
