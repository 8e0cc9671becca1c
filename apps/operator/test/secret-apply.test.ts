import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds } from './support/cluster.js';
import { runCli } from './support/run-cli.js';

// `secret ... --apply` against a real kube-apiserver: created, then updated in place.
const dir = mkdtempSync(join(tmpdir(), 'ep-secret-apply-'));
const SENTINEL = 'proxies@pve!operator=apply-sentinel-4f1d';
let cp: KubeControlPlane;

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace('egress-proxies-system');
}, CONTROL_PLANE_BUDGET_MS);
afterAll(async () => {
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args);

describe('egress-proxies secret --apply', () => {
  it('creates the Secret through the kubeconfig, then updates it, and never prints the token', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, cp.kubeconfig());
    const token = join(dir, 'token');
    writeFileSync(token, `${SENTINEL}\n`);
    const args = ['secret', 'proxmox-token', '--token-file', token, '--apply', '--kubeconfig', kubeconfig];
    const first = await cli(...args);
    expect(first.stderr).toBe('secret egress-proxies-system/proxmox-token created (keys token)\n');
    expect(first.status).toBe(0);
    const read = async () => {
      const r = await cp.request('GET', '/api/v1/namespaces/egress-proxies-system/secrets/proxmox-token');
      expect(r.status).toBe(200);
      return JSON.parse(r.body) as { data: Record<string, string> };
    };
    expect(Buffer.from((await read()).data.token ?? '', 'base64').toString()).toBe(`${SENTINEL}\n`);

    writeFileSync(token, `${SENTINEL}-rotated\n`);
    const second = await cli(...args);
    expect(second.status).toBe(0);
    expect(second.stderr).toBe('secret egress-proxies-system/proxmox-token updated (keys token)\n');
    expect(Buffer.from((await read()).data.token ?? '', 'base64').toString()).toBe(`${SENTINEL}-rotated\n`);
    for (const r of [first, second]) expect(`${r.stdout}${r.stderr}`).not.toContain('apply-sentinel');
  });

  it('names the namespace when the API server refuses (no such namespace)', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const token = join(dir, 'token');
    const r = await cli(
      'secret',
      'proxmox-token',
      '--token-file',
      token,
      '--apply',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      'absent-ns',
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^egress-proxies: secret absent-ns\/proxmox-token: the API server answered 404: namespaces "absent-ns" not found\n$/,
    );
    expect(r.stderr).not.toContain('apply-sentinel');
  });
});
