import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FINALIZER } from '../api/group.js';
import { FileProxyStore } from './file-proxy-store.js';
import { readState } from './state-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = (name: string, port = 3128) =>
  `apiVersion: egress-proxies.dev/v1alpha1\nkind: Proxy\nmetadata: {name: ${name}}\nspec: {provider: local, port: ${port}}\n`;

function setup(sub: string) {
  const file = join(dir, `${sub}.yaml`);
  const stateDir = join(dir, `${sub}-state`);
  // No watcher timing in these tests: every change is applied by an explicit rescan.
  const make = () =>
    new FileProxyStore({
      paths: [file],
      stateDir,
      installation: 'inst-1',
      rescanMs: 3_600_000,
      debounceMs: 3_600_000,
    });
  return { file, stateDir, make };
}

describe('FileProxyStore', () => {
  it('moves the generation on a spec change only, and keeps uid and status', async () => {
    const { file, make } = setup('gen');
    writeFileSync(file, doc('a'));
    const s = make();
    await s.start();
    const a = s.get('default/a')!;
    expect(a.metadata.generation).toBe(1);
    await s.updateStatus(a, { phase: 'Ready' });
    writeFileSync(file, `# a comment only\n${doc('a')}`);
    await s.rescan();
    expect(s.get('default/a')?.metadata.generation).toBe(1);
    writeFileSync(file, doc('a', 3129));
    await s.rescan();
    const b = s.get('default/a')!;
    expect(b.metadata.generation).toBe(2);
    expect(b.metadata.uid).toBe(a.metadata.uid);
    expect(b.status?.phase).toBe('Ready');
    await s.stop();
  });

  it('holds a removed Proxy as deleting while a finalizer is on it, then forgets it', async () => {
    const { file, make } = setup('fin');
    writeFileSync(file, doc('a'));
    const s = make();
    await s.start();
    await s.addFinalizer(s.get('default/a')!, FINALIZER);
    const seen: string[] = [];
    s.onChange((k) => seen.push(k));
    writeFileSync(file, '');
    await s.rescan();
    const held = s.get('default/a')!;
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(seen).toEqual(['default/a']);
    await s.removeFinalizer(held, FINALIZER);
    expect(s.get('default/a')).toBeUndefined();
    await s.stop();
  });

  it('keeps the last good spec of Proxies whose file stops parsing', async () => {
    const { file, make } = setup('broken');
    writeFileSync(file, doc('a'));
    const s = make();
    await s.start();
    writeFileSync(file, 'apiVersion: [broken\n');
    await s.rescan();
    expect(s.get('default/a')?.metadata.deletionTimestamp).toBeUndefined();
    expect(s.issues()[0]?.message).toMatch(/^YAML: /);
    await s.stop();
  });

  it('restores uid, generation, finalizers and status from the state file on restart', async () => {
    const { file, stateDir, make } = setup('restart');
    writeFileSync(file, doc('a'));
    const s1 = make();
    await s1.start();
    let a = await s1.addFinalizer(s1.get('default/a')!, FINALIZER);
    a = await s1.updateStatus(a, { phase: 'Ready', providerID: 'local/x' });
    s1.recordEndpoint('default/a', { host: '127.0.0.1', port: 21001 });
    await s1.stop();
    expect(readState(stateDir)?.proxies[0]).toMatchObject({ name: 'a', endpoint: { port: 21001 } });

    // Removed from the file while no up ran: the restart holds it for deletion.
    writeFileSync(file, '');
    const s2 = make();
    await s2.start();
    const r = s2.get('default/a')!;
    expect(r.metadata.uid).toBe(a.metadata.uid);
    expect(r.metadata.finalizers).toEqual([FINALIZER]);
    expect(r.status?.providerID).toBe('local/x');
    expect(r.metadata.deletionTimestamp).toBeDefined();
    expect(s2.endpoint('default/a')).toEqual({ host: '127.0.0.1', port: 21001 });
    await s2.stop();
  });

  it('refuses Secrets with a message that says what to use instead', async () => {
    const { make } = setup('secret');
    await expect(make().readSecret('default', 'ud', 'user-data')).rejects.toThrow('spec.cloudInit.inline');
  });
});
