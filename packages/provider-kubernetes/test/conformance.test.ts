import { describeProviderConformance } from '@egress-proxies/conformance';
import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll } from 'vitest';
import { ConformanceEnv, createKubeHarness } from '../src/test/conformance-harness.js';
import { CONTROL_PLANE_BUDGET_MS } from '../src/test/kube.js';

const env = new ConformanceEnv();
let cp: KubeControlPlane | undefined;
beforeAll(async () => {
  cp = await startKubeControlPlane();
  await env.start(cp);
}, CONTROL_PLANE_BUDGET_MS);
afterAll(async () => {
  await env.stop();
  await cp?.stop();
});

// Every case the profile admits runs: GET-07 and LIST-03 need only some createdAt for a seeded
// Pod (creationTimestamp is the server's) and check the created Pods' against the create window.
describeProviderConformance(createKubeHarness(env));
