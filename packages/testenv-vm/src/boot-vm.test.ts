import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireBootSlot } from './boot-slot.js';
import { bootVm } from './boot-vm.js';
import { TestEnvVmError } from './errors.js';

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  return TestEnvVmError.isInstance(e) ? e.code : String(e);
}

describe('bootVm input checks and start failures', () => {
  let dir: string;
  const seedIso = new Uint8Array(2048);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'testenv-vm-boot-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names the bad value', async () => {
    await expect(bootVm({ image: '', seedIso })).rejects.toThrow(/image must be a path/);
    await expect(bootVm({ image: '/x.qcow2', seedIso, memoryMiB: 100 })).rejects.toThrow(
      /memoryMiB .* got 100/,
    );
    await expect(bootVm({ image: '/x.qcow2', seedIso, cpus: 0 })).rejects.toThrow(/cpus .* got 0/);
    await expect(
      bootVm({ image: '/x.qcow2', seedIso, guestForwards: [{ guestPort: 8080, hostPort: 70000 }] }),
    ).rejects.toThrow(/port 70000/);
    expect(await codeOf(bootVm({ image: '/x.qcow2', seedIso: 42 as unknown as string }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('reports a missing image before starting anything', async () => {
    const err = bootVm({ image: join(dir, 'absent.qcow2'), seedIso });
    await expect(err).rejects.toThrow(/absent\.qcow2 does not exist/);
  });

  it('fails with VM_START_FAILED for an image that is not qcow2, and removes its work dir', async () => {
    const bogus = join(dir, 'bogus.qcow2');
    await writeFile(bogus, 'not a disk image');
    const tmpRoot = join(dir, 'work');
    await mkdir(tmpRoot);
    const slots = { lockDir: join(dir, 'slots'), slots: 1 };
    expect(await codeOf(bootVm({ image: bogus, seedIso, tmpRoot, bootSlot: slots }))).toBe('VM_START_FAILED');
    expect(await readdir(tmpRoot)).toEqual([]);
    // The failed boot gave its slot back: the next one gets it without waiting.
    let waited = false;
    const next = await acquireBootSlot({ ...slots, onWait: () => (waited = true) });
    expect(waited).toBe(false);
    await next.release();
  });

  it('queues behind a held boot slot and, cancelled there, starts nothing', async () => {
    const image = join(dir, 'queued.qcow2');
    await writeFile(image, 'never booted');
    const tmpRoot = join(dir, 'queued-work');
    await mkdir(tmpRoot);
    const slots = { lockDir: join(dir, 'queued-slots'), slots: 1 };
    const held = await acquireBootSlot(slots);
    const ac = new AbortController();
    let waited = false;
    const boot = bootVm({
      image,
      seedIso,
      tmpRoot,
      signal: ac.signal,
      bootSlot: { ...slots, onWait: () => (waited = true) },
    });
    while (!waited) await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('cancelled in the queue'));
    await expect(boot).rejects.toThrow('cancelled in the queue');
    expect(await readdir(tmpRoot)).toEqual([]);
    await held.release();
  });

  it('returns at once when already aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('not now'));
    await expect(bootVm({ image: '/x.qcow2', seedIso, signal: ac.signal })).rejects.toThrow('not now');
  });
});
