import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import type { Backend } from './backend.js';
import { observe } from './observe.js';

const METHODS: (keyof Backend)[] = [
  'clusterResources',
  'vmConfig',
  'setVmConfig',
  'vmStatus',
  'agentInterfaces',
  'cloneVm',
  'resizeDisk',
  'startVm',
  'stopVm',
  'destroyVm',
  'uploadIso',
  'deleteVolume',
  'storageContent',
  'storageStatus',
  'taskStatus',
  'version',
  'nodeStatus',
  'permissions',
];

function stub(fail: boolean): Backend {
  const b: Record<string, unknown> = {};
  for (const m of METHODS) {
    b[m] = async () => {
      if (fail) throw new ApiError({ status: 500, statusText: 'x', text: 'boom', method: 'GET', path: '/p' });
      return 'UPID:pve1:00000001:00000002:00000003:qmstart:100:root@pam!t:';
    };
  }
  return b as unknown as Backend;
}

describe('observe', () => {
  for (const fail of [false, true]) {
    it(`every seam method logs exactly one line (${fail ? 'failing' : 'succeeding'})`, async () => {
      const lines: LogLine[] = [];
      const api = observe(stub(fail), createLogger({ verbosity: 1, sink: (l) => lines.push(l) }));
      const signal = new AbortController().signal;
      const secret = new Uint8Array(Buffer.from('#cloud-config secret-user-data'));
      for (const m of METHODS) {
        const call = (api[m] as (...a: unknown[]) => Promise<unknown>)(signal, 'pve1', 100, 'a', secret);
        if (fail) await expect(call).rejects.toBeInstanceOf(ApiError);
        else await call;
      }
      expect(lines.map((l) => l.call)).toEqual(METHODS);
      for (const l of lines) {
        expect(l.msg).toBe('proxmox api call');
        expect(JSON.stringify(l)).not.toContain('secret-user-data');
        if (fail) expect(l).toMatchObject({ httpStatus: 500, error: expect.stringContaining('boom') });
        else expect(l.upid).toMatch(/^UPID:/);
      }
    });
  }
  it('is a no-op below V1', () => {
    const b = stub(false);
    expect(observe(b, createLogger({ verbosity: 0, sink: () => {} }))).toBe(b);
  });
});
