import { readFileSync, writeFileSync } from 'node:fs';
import { replaceMeasured } from '@egress-proxies/e2e-vm';

/** What one cluster run measured (seconds), written by the test and the runner. */
export interface KubeTimings {
  date: string;
  /** Each build step as this run found it: a cache hit takes well under a second. */
  build: {
    controlPlane?: number;
    kubeNode?: number;
    collector?: number;
    helm?: number;
    squidImage?: number;
    operatorImage?: number;
  };
  /** From the start call to the node Ready (images imported). */
  clusterStart: number;
  kustomizeReady: number;
  helmInstallReady: number;
  proxyReady: number;
  proxyDeleted: number;
  /** ProxyPool created to two Ready members and the chart's gateway serving it. */
  poolGatewayReady?: number;
  externalReady: number;
  helmUpgrade: number;
  total: number;
}

export const KUBE_REPORT_START = '<!-- e2e-kube:measured:start -->';
export const KUBE_REPORT_END = '<!-- e2e-kube:measured:end -->';

const s = (n: number | undefined) => (n === undefined ? 'not measured' : `${n.toFixed(1)} s`);

export function renderKubeTimings(t: KubeTimings): string {
  const rows: [string, string][] = [
    ['etcd and kube-apiserver (Go modules)', s(t.build.controlPlane)],
    ['kubelet, kube-proxy, scheduler, controller manager (one binary)', s(t.build.kubeNode)],
    ['OpenTelemetry Collector', s(t.build.collector)],
    ['helm', s(t.build.helm)],
    ['Squid image', s(t.build.squidImage)],
    ['operator image (Dockerfile, buildah)', s(t.build.operatorImage)],
    ['cluster start (node Ready, images imported)', s(t.clusterStart)],
    ['`kubectl apply -k config/default` to the operator Ready with the Lease', s(t.kustomizeReady)],
    ['`helm install` to the operator Ready with the Lease', s(t.helmInstallReady)],
    ['kubernetes Proxy created to Ready (Squid Pod running, probe through it)', s(t.proxyReady)],
    ['kubernetes Proxy deleted to gone with its Pod', s(t.proxyDeleted)],
    ['External Proxy created to Ready', s(t.externalReady)],
    ['ProxyPool of 2 to Ready members and the chart gateway in its status', s(t.poolGatewayReady)],
    ['`helm upgrade` with a changed CRD to the new field served', s(t.helmUpgrade)],
    ['the whole scenario', s(t.total)],
  ];
  return [
    KUBE_REPORT_START,
    `Measured ${t.date} by \`pnpm e2e:kube\` (2 cores; build rows under a second are cache hits; the times move with whatever else the machine runs):`,
    '',
    '| step | time |',
    '| ---- | ---- |',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    KUBE_REPORT_END,
  ].join('\n');
}

export function updateKubeReport(docPath: string, t: KubeTimings): void {
  const doc = readFileSync(docPath, 'utf8');
  writeFileSync(docPath, replaceMeasured(doc, renderKubeTimings(t), KUBE_REPORT_START, KUBE_REPORT_END));
}
