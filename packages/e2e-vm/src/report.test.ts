import { describe, expect, it } from 'vitest';
import { type E2eTimings, REPORT_END, REPORT_START, renderTimings, replaceMeasured } from './report.js';

const timings: E2eTimings = {
  date: '2026-11-29',
  image: { bytes: 400 * 1024 * 1024 },
  download: { bytes: 400 * 1024 * 1024, seconds: 8 },
  first: { applyToProvisioning: 20.04, applyToRunning: 61.24, runningToReady: 9.5 },
  second: { applyToProvisioning: 3, applyToRunning: 50, runningToReady: 8 },
  kvm: { applyToProvisioning: 3, applyToRunning: 52, runningToReady: 7 },
  deleteSeconds: 3.25,
  inCluster: { applyToReady: 64, deleteSeconds: 2 },
};

describe('renderTimings', () => {
  it('shows each step, the download rate and the command, inside the markers', () => {
    const text = renderTimings(timings, 'pnpm e2e:vm');
    expect(text.startsWith(REPORT_START)).toBe(true);
    expect(text.endsWith(REPORT_END)).toBe(true);
    expect(text).toContain('`pnpm e2e:vm`');
    expect(text).toContain('| download + upload into the pool | 8.0 s (50 MiB/s) |');
    expect(text).toContain('| first Proxy: apply to Running (includes the image cache) | 61.2 s |');
    expect(text).toContain('| delete (document removed to Deleted) | 3.3 s |');
    expect(text).toContain(
      '| first Proxy: apply to the create call returning (includes the image cache) | 20.0 s |',
    );
    expect(text).toContain('cached; build time not recorded');
    const built = (image: E2eTimings['image']) => renderTimings({ ...timings, image }, 'x');
    expect(built({ bytes: 1, buildSeconds: 250, rebuilt: true })).toContain(
      '| image build (debootstrap to qcow2) | 250.0 s (built in this run) |',
    );
    expect(built({ bytes: 1, buildSeconds: 250, builtAt: '2026-11-28T10:00:00Z' })).toContain(
      '| image build (debootstrap to qcow2) | 250.0 s (cached, built 2026-11-28) |',
    );
  });
});

describe('replaceMeasured', () => {
  it('replaces only the section between the markers', () => {
    const doc = `# t\nbefore\n${REPORT_START}\nold\n${REPORT_END}\nafter\n`;
    expect(replaceMeasured(doc, `${REPORT_START}\nnew\n${REPORT_END}`)).toBe(
      `# t\nbefore\n${REPORT_START}\nnew\n${REPORT_END}\nafter\n`,
    );
  });

  it('fails when the document has no section', () => {
    expect(() => replaceMeasured('# no markers\n', 'x')).toThrow(/e2e:measured:start/);
  });
});
