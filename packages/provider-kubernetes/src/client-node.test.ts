import { ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
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
