/**
 * The operator's rooms and the order they stack in, bottom first. A room may import the rooms
 * below it, never one above it or a peer on its own floor: so folders cannot form cycles and the
 * layering cannot rot unseen. `pnpm --filter @egress-proxies/operator rooms` checks it (it runs
 * in the package's test script). Paths are relative to the folder the check runs in.
 */
const FLOORS = [
  ['api'],
  ['domain'],
  ['telemetry'],
  ['probe', 'providers', 'pool', 'gateway', 'status-page'],
  ['engine/queue', 'engine/operations'],
  ['engine/store'],
  ['engine/reconcile'],
  ['engine/controller'],
  ['engine/health', 'engine/gc'],
  ['engine'],
  ['cluster', 'standalone'],
  ['commands'],
  [''],
];

// A room's files: `engine` alone means the files directly in src/engine/, not its sub-rooms.
const room = (name) =>
  name === '' ? '^src/[^/]+$' : name === 'engine' ? '^src/engine/[^/]+$' : `^src/${name}/`;

const rules = [];
FLOORS.forEach((floor, i) => {
  for (const name of floor) {
    const above = FLOORS.slice(i + 1).flat();
    const peers = floor.filter((p) => p !== name);
    for (const [kind, targets] of [
      ['upward', above],
      ['peer', peers],
    ]) {
      if (targets.length === 0) continue;
      rules.push({
        name: `no-${kind}-import-from-${name || 'src-root'}`,
        comment: `${name || 'src/'} sits on floor ${i + 1}: it may import only rooms on lower floors.`,
        severity: 'error',
        from: { path: room(name), pathNot: '\\.test\\.ts$' },
        to: { path: targets.map(room) },
      });
    }
  }
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop: cut the loop by moving what both need lower.',
      severity: 'error',
      from: { pathNot: '\\.test\\.ts$' },
      to: { circular: true },
    },
    ...rules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
  },
};
