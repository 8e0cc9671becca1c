import { readFileSync, writeFileSync } from 'node:fs';

/** What one run measured, written by the test and rendered into docs/e2e.md by the runner. */
export interface E2eTimings {
  /** ISO date of the run. */
  date: string;
  /** The build time is this run's when it built the image, else the cached image's record. */
  image: { bytes: number; buildSeconds?: number; builtAt?: string; rebuilt?: boolean };
  /** The provider's download of the base image, as served (it is uploaded as it arrives). */
  download: { bytes: number; seconds: number };
  first: ProxyTimes;
  /** The second Proxy, on the image the first one cached. */
  second: ProxyTimes;
  /** A Proxy of the kvm provider type, created alongside the second one. */
  kvm: ProxyTimes;
  /** A Proxy created through the API server, with the operator running in-cluster mode. */
  inCluster: { applyToReady: number; deleteSeconds: number };
  /** From removing the first Proxy's document to its `Deleted` line. */
  deleteSeconds: number;
}

export interface ProxyTimes {
  /** Until the create call returned (image cache, overlay, seed, define, start). */
  applyToProvisioning: number;
  applyToRunning: number;
  runningToReady: number;
}

export const REPORT_START = '<!-- e2e:measured:start -->';
export const REPORT_END = '<!-- e2e:measured:end -->';

const s = (n: number) => `${n.toFixed(1)} s`;
const mib = (bytes: number) => bytes / (1024 * 1024);

function buildCell(image: E2eTimings['image']): string {
  if (image.buildSeconds === undefined) return 'cached; build time not recorded';
  const took = s(image.buildSeconds);
  return image.rebuilt
    ? `${took} (built in this run)`
    : `${took} (cached, built ${image.builtAt?.slice(0, 10) ?? 'earlier'})`;
}

/** The measured section: a table of one run, with how it was produced. */
export function renderTimings(t: E2eTimings, command: string): string {
  const rate = t.download.seconds > 0 ? mib(t.download.bytes) / t.download.seconds : 0;
  const rows = [
    ['image build (debootstrap to qcow2)', buildCell(t.image)],
    ['base image', `${mib(t.image.bytes).toFixed(0)} MiB`],
    ['download + upload into the pool', `${s(t.download.seconds)} (${rate.toFixed(0)} MiB/s)`],
    [
      'first Proxy: apply to the create call returning (includes the image cache)',
      s(t.first.applyToProvisioning),
    ],
    ['first Proxy: apply to Running (includes the image cache)', s(t.first.applyToRunning)],
    ['first Proxy: Running to Ready', s(t.first.runningToReady)],
    [
      'second Proxy (kvm2, cached image): apply to the create call returning',
      s(t.second.applyToProvisioning),
    ],
    ['second Proxy (kvm2, cached image): apply to Running', s(t.second.applyToRunning)],
    ['second Proxy: Running to Ready', s(t.second.runningToReady)],
    ['kvm-type Proxy (alongside the second): apply to Running', s(t.kvm.applyToRunning)],
    ['kvm-type Proxy: Running to Ready', s(t.kvm.runningToReady)],
    ['delete (document removed to Deleted)', s(t.deleteSeconds)],
    ['in-cluster operator, cached image: Proxy created to Ready', s(t.inCluster.applyToReady)],
    ['in-cluster operator: Proxy deleted to gone (finalizer done)', s(t.inCluster.deleteSeconds)],
  ];
  return [
    REPORT_START,
    `Measured ${t.date} by \`${command}\` (2 cores, TCG guests; the times move with whatever else the machine runs):`,
    '',
    '| step | time |',
    '| ---- | ---- |',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    REPORT_END,
  ].join('\n');
}

/**
 * Replaces the measured section of `doc` (between the markers, which `section` carries too);
 * fails if they are missing.
 */
export function replaceMeasured(
  doc: string,
  section: string,
  start = REPORT_START,
  end = REPORT_END,
): string {
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error(`the document has no ${start} ... ${end} section`);
  return doc.slice(0, a) + section + doc.slice(b + end.length);
}

export function updateReport(docPath: string, t: E2eTimings, command: string): void {
  writeFileSync(docPath, replaceMeasured(readFileSync(docPath, 'utf8'), renderTimings(t, command)));
}
