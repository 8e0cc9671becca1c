import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localUp, waitFor as poll } from './support/standalone-pool-harness.js';
import { getVia } from './support/through-gateway.js';

// A pool that follows demand under `up`, over the real local provider: it starts with no member,
// the first request through its gateway wakes it and is answered through a member that did not
// exist, and after scaleDownAfter without load it goes back to zero.
let up: Awaited<ReturnType<typeof localUp>>;

const poolDoc = () => `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata:
  name: sleepy
spec:
  replicas: 0
  template:
    provider: local
    probe: {target: "${up.echo.url}", interval: 30s, timeout: 2s, retries: 1}
  autoscale:
    minReplicas: 0
    maxReplicas: 2
    targetActiveConnections: 5
    scaleDownAfter: 2s
    stepInterval: 0s
    wakeTimeout: 120s
  # The echo server holds this port: the gateway takes a free one.
  gateway: {port: ${up.echo.port}}
`;

const waitFor = <T>(what: string, fn: () => T | undefined | false) =>
  poll(what, fn, () => up.running?.pools.views());

const view = () => up.running?.pools.views().find((p) => p.key === 'default/sleepy');

beforeAll(async () => {
  up = await localUp('ep-autoscale-', { min: 24400, max: 24409 });
});
afterAll(() => up?.cleanup());

describe('a ProxyPool with autoscale under up', () => {
  it('sleeps at zero, wakes on the first request, answers it through the new member, and sleeps again after idle', async () => {
    writeFileSync(up.docsPath, poolDoc());
    await up.start({ poolIntervalMs: 200 });
    const asleep = await waitFor('the gateway of a pool with no member', () => {
      const v = view();
      return v?.gateway && v.autoscale?.reason === 'Idle' ? v : undefined;
    });
    expect(asleep).toMatchObject({ desired: 0, replicas: 0, ready: 0, autoscale: { min: 0, max: 2 } });

    const started = performance.now();
    const answer = await getVia(Number(new URL(asleep.gateway as string).port), up.echo.url);
    const wakeMs = performance.now() - started;
    expect(answer.status, answer.body).toBe(200);
    const woke = view();
    expect(woke?.members).toHaveLength(1);
    // The request left through the member created for it (the local provider gives each its own loopback address).
    expect(JSON.parse(answer.body).ip).toBe(woke?.members[0]?.egressIP);
    const [one, five, fifteen] = loadavg().map((n) => n.toFixed(1));
    console.log(
      `wake on demand under up: ${wakeMs.toFixed(0)} ms from the first request to its answer through a new member (load average ${one} ${five} ${fifteen})`,
    );

    // No load: after scaleDownAfter the pool goes back to zero, and says why.
    const slept = await waitFor('the pool back at zero', () => {
      const v = view();
      return v && v.members.length === 0 && v.desired === 0 ? v : undefined;
    });
    expect(slept.autoscale?.reason).toMatch(/^(ScalingDown|Idle)$/);
    await waitFor('the autoscaler idle at zero', () => view()?.autoscale?.reason === 'Idle');
  }, 180_000);
});
