import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { SERVICE_ACCOUNT_TOKEN } from './default-kubeconfig.js';
import { createKubernetesProvider } from './provider.js';

describe('the client-node adapter without a server', () => {
  it('reports a kubeconfig without a current cluster as Permanent INVALID_CONFIG, at the first call only', async () => {
    const p = createKubernetesProvider(
      {},
      { name: 'k', kubeConfig: 'apiVersion: v1\nkind: Config\nclusters: []\n' },
    );
    const e = await p
      .listByTag()
      .catch((err: unknown) => err as { kind: string; code: string; provider: string });
    expect(e).toMatchObject({ kind: ErrorKind.Permanent, code: ErrorCode.InvalidConfig, provider: 'k' });
    const [r] = await p.check();
    expect(r).toMatchObject({ target: 'apiserver', ready: false, reason: 'InvalidKubeconfig' });
  });

  it("without any kubeconfig says what is missing (not client-node's localhost:8080 TLS complaint)", async () => {
    expect(existsSync(SERVICE_ACCOUNT_TOKEN), 'this test needs a machine outside a Pod').toBe(false);
    const home = mkdtempSync(join(tmpdir(), 'ep-k8s-home-'));
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
    delete process.env.KUBECONFIG;
    process.env.HOME = home;
    try {
      const p = createKubernetesProvider({}, { name: 'k' });
      const e = (await p.get('ns/x').catch((err: unknown) => err)) as Error & { kind: string; code: string };
      expect(e).toMatchObject({ kind: ErrorKind.Permanent, code: ErrorCode.InvalidConfig });
      expect(e.message).toContain(
        `no kubeconfig: $KUBECONFIG is unset, ${join(home, '.kube', 'config')} does not exist, and this is not a Pod with a service account`,
      );
      expect(e.message).not.toContain('HTTP protocol is not allowed');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('never quotes an unparsable kubeconfig (it may hold a token) in the error', async () => {
    const doc = 'users: [ {token: "sekret-token-xyz"';
    const p = createKubernetesProvider({}, { kubeConfig: doc });
    const e = (await p.get('ns/x').catch((err: unknown) => err)) as Error & { code: string };
    expect(e.code).toBe(ErrorCode.InvalidConfig);
    expect(`${e.message} ${JSON.stringify(e)}`).not.toContain('sekret-token-xyz');
  });

  it('rejects a bad config block at construction, naming the provider', () => {
    expect(() => createKubernetesProvider({ image: 'has space' }, { name: 'k2' })).toThrow(
      /^k2 configure: invalid kubernetes config \(1 issue\)\nkubernetes\.image: /,
    );
  });
});
