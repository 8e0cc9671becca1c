import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { run } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCluster, PAUSE_IMAGE, startKubeCluster } from '../src/index.js';

// A cold build of the node binary from Go modules takes many minutes on 2 cores; later runs hit
// the cache keyed by the wrapper module.
const BUILD_BUDGET_MS = 60 * 60_000;

describe('a one-node cluster', () => {
  let cluster: KubeCluster | undefined;
  let netns = '';
  beforeAll(async () => {
    cluster = await startKubeCluster();
    netns = cluster.netns;
  }, BUILD_BUDGET_MS);
  afterAll(async () => {
    await cluster?.stop();
  });

  it(
    'has a Ready node that runs a Pod (the local pause image as its container)',
    async () => {
      const c = cluster as KubeCluster;
      await c.ensureNamespace('smoke');
      const created = await c.request('POST', '/api/v1/namespaces/smoke/pods', {
        metadata: { name: 'pause' },
        spec: { containers: [{ name: 'pause', image: PAUSE_IMAGE }] },
      });
      expect(created.status).toBe(201);
      let pod: { status?: { phase?: string; podIP?: string } } = {};
      for (let i = 0; i < 600 && pod.status?.phase !== 'Running'; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        pod = (await c.request('GET', '/api/v1/namespaces/smoke/pods/pause')).json();
      }
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.podIP).toMatch(/^10\.244\.0\./);
    },
    15 * 60_000,
  );

  it(
    'stops without leaving its namespace, cgroup root or directory behind',
    async () => {
      await cluster?.stop();
      cluster = undefined;
      expect((await run('ip', ['netns', 'list'])).stdout).not.toContain(netns);
      expect(existsSync(`/sys/fs/cgroup/memory/${netns}`)).toBe(false);
      expect(readdirSync(tmpdir()).filter((d) => d.startsWith(`${netns}-`))).toEqual([]);
    },
    5 * 60_000,
  );
});
