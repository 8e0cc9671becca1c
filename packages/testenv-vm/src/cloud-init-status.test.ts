import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCloudInitStatus, progressFromCat } from './cloud-init-status.js';

// Written by status_wrapper() from Debian 12's cloud-init 22.4.2 (cloudinit/cmd/main.py), run
// stage by stage with stub stage functions: the guest image's exact writer and layout.
const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/cloud-init-22.4/${name}`, import.meta.url), 'utf8');

describe('cloud-init status.json', () => {
  it('reads a boot in the middle of the init stage as running, not done', () => {
    const p = parseCloudInitStatus(fixture('status-during-init.json'));
    expect(p).toEqual({
      running: 'init',
      finished: ['init-local'],
      errors: [],
      datasource: undefined,
      done: false,
    });
  });

  it('reads a finished boot as done, with each stage error prefixed by its stage', () => {
    const p = parseCloudInitStatus(fixture('status-done-with-error.json'));
    expect(p.done).toBe(true);
    expect(p.running).toBeUndefined();
    expect(p.finished).toEqual(['init-local', 'init', 'modules-config', 'modules-final']);
    expect(p.errors).toEqual(['modules-final: Module cc_runcmd failed']);
    expect(p.datasource).toBe('DataSourceNoCloud [seed=/dev/sr0][dsmode=net]');
  });

  it('treats a missing file as not started and names a malformed one', () => {
    expect(
      progressFromCat({ exitCode: 1, signal: undefined, stdout: '', stderr: 'No such file' }),
    ).toBeUndefined();
    expect(() => parseCloudInitStatus('{"v1": ')).toThrow(/status.json is not JSON/);
    expect(() => parseCloudInitStatus('{"v2": {}}')).toThrow(/has no v1 object/);
  });
});
