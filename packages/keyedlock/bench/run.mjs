// Compares KeyedLock with the usual hand-rolled alternative, measured in the same process:
// an async-mutex Mutex per key in a Map, created on demand and deleted when idle.
// Run after a build: `pnpm --filter @egress-proxies/keyedlock bench`.
import { existsSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Mutex } from 'async-mutex';

const built = new URL('../dist/index.js', import.meta.url);
if (!existsSync(built)) {
  console.error('bench: dist/index.js is missing; run `pnpm --filter @egress-proxies/keyedlock build` first');
  process.exit(1);
}
const { KeyedLock } = await import(built.href);

const ROUNDS = 5; // paired rounds, order alternating; medians are reported
const MEASURE_MS = 300;
const WARMUP_MS = 150;
const WAITERS = 100;
const DISTINCT_KEYS = Array.from({ length: 65_536 }, (_, i) => `instance-${i}`);

/** The baseline: what a caller writes without this package. */
class MutexPerKey {
  map = new Map();

  #mutex(key) {
    let mutex = this.map.get(key);
    if (mutex === undefined) {
      mutex = new Mutex();
      this.map.set(key, mutex);
    }
    return mutex;
  }

  #dropIfIdle(key, mutex) {
    // async-mutex hands the lock to the next waiter synchronously on release, so "not locked"
    // here means nobody is waiting either.
    if (!mutex.isLocked() && this.map.get(key) === mutex) this.map.delete(key);
  }

  acquire(key) {
    const mutex = this.#mutex(key);
    return mutex.acquire().then((release) => () => {
      release();
      this.#dropIfIdle(key, mutex);
    });
  }

  withLock(key, fn) {
    const mutex = this.#mutex(key);
    return mutex.runExclusive(fn).finally(() => this.#dropIfIdle(key, mutex));
  }

  get size() {
    return this.map.size;
  }
}

const noop = () => {};

// Each scenario runs one batch and returns how many acquire/release pairs it completed.
const scenarios = [
  {
    name: 'acquire/release, uncontended, one key',
    batch: async (lock) => {
      for (let i = 0; i < 1000; i++) (await lock.acquire('instance-0'))();
      return 1000;
    },
  },
  {
    name: 'acquire/release, uncontended, distinct keys',
    batch: async (lock, state) => {
      for (let i = 0; i < 1000; i++) {
        state.i = (state.i + 1) & 65_535;
        (await lock.acquire(DISTINCT_KEYS[state.i]))();
      }
      return 1000;
    },
  },
  {
    name: `acquire/release, contended (${WAITERS} waiters, one key)`,
    batch: async (lock) => {
      const all = new Array(WAITERS);
      for (let i = 0; i < WAITERS; i++) all[i] = lock.acquire('instance-0').then((release) => release());
      await Promise.all(all);
      return WAITERS;
    },
  },
  {
    name: 'withLock, uncontended, one key',
    batch: async (lock) => {
      for (let i = 0; i < 1000; i++) await lock.withLock('instance-0', noop);
      return 1000;
    },
  },
  {
    name: `withLock, contended (${WAITERS} waiters, one key)`,
    batch: async (lock) => {
      const all = new Array(WAITERS);
      for (let i = 0; i < WAITERS; i++) all[i] = lock.withLock('instance-0', noop);
      await Promise.all(all);
      return WAITERS;
    },
  },
  {
    name: `acquire/release, contended, shared AbortSignal (${WAITERS} waiters) ¹`,
    signal: true,
    batch: async (lock, state) => {
      const all = new Array(WAITERS);
      const options = state.options;
      for (let i = 0; i < WAITERS; i++)
        all[i] = lock.acquire('instance-0', options).then((release) => release());
      await Promise.all(all);
      return WAITERS;
    },
  },
];

async function measure(scenario, makeLock, ms) {
  const lock = makeLock();
  const state = { i: 0, options: { signal: new AbortController().signal } };
  let ops = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  while (performance.now() - start < ms) {
    ops += await scenario.batch(lock, state);
  }
  // Rates are per CPU second of this process, not per wall second: on a shared machine the
  // wall clock also counts time other processes had the core.
  const cpu = process.cpuUsage(cpuStart);
  if (lock.size !== 0) throw new Error(`${scenario.name}: ${lock.size} keys left behind`);
  return (ops / (cpu.user + cpu.system)) * 1e6;
}

/** A padded table, laid out the way the repository's markdown formatter leaves it. */
function markdownTable(header, align, body) {
  const widths = header.map((_, c) => Math.max(3, ...[header, ...body].map((row) => row[c].length)));
  const line = (cells) =>
    `| ${cells.map((text, c) => (align[c] === 'right' ? text.padStart(widths[c]) : text.padEnd(widths[c]))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (align[c] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const started = performance.now();
const rows = [];
for (const scenario of scenarios) {
  const ours = [];
  const base = [];
  await measure(scenario, () => new KeyedLock(), WARMUP_MS);
  // The baseline cannot take a signal, so the signal row compares against its plain run.
  if (!scenario.signal) await measure(scenario, () => new MutexPerKey(), WARMUP_MS);
  const baseScenario = scenario.signal ? { ...scenario, batch: scenarios[2].batch } : scenario;
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate who goes first, and pair each round's two runs: the machine may be shared,
    // and a ratio taken within one round cancels most of the drift between rounds.
    let a;
    let b;
    if (round % 2 === 0) {
      a = await measure(scenario, () => new KeyedLock(), MEASURE_MS);
      b = await measure(baseScenario, () => new MutexPerKey(), MEASURE_MS);
    } else {
      b = await measure(baseScenario, () => new MutexPerKey(), MEASURE_MS);
      a = await measure(scenario, () => new KeyedLock(), MEASURE_MS);
    }
    ours.push(a);
    base.push(b);
    ratios.push(a / b);
  }
  const a = median(ours);
  const b = median(base);
  rows.push([scenario.name, fmt(a), fmt(b), `${median(ratios).toFixed(2)}×`]);
  console.log(`${scenario.name}: ${fmt(a)} vs ${fmt(b)} ops/CPU-s`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);

const cpu = cpus()[0]?.model?.trim() ?? 'unknown CPU';
const table = markdownTable(
  ['Scenario', 'KeyedLock (ops/CPU-s)', 'async-mutex Mutex per key (ops/CPU-s)', 'Ratio'],
  ['left', 'right', 'right', 'right'],
  rows,
);
const notes = [
  `- Node ${process.version}, ${cpus().length} × ${cpu}; median of ${ROUNDS} paired rounds of ${MEASURE_MS} ms per implementation; whole run ${seconds} s.`,
  '- One op is one acquire plus its release. Rates are per second of CPU time used by the benchmark process (steadier than wall time on a shared machine).',
  '- Ratio = median over rounds of KeyedLock / baseline within the round; above 1× means KeyedLock is faster.',
  '- Baseline: an async-mutex 0.5.0 `Mutex` per key in a `Map`, created on demand and deleted when idle.',
  '- ¹ async-mutex cannot abort a wait, so this row compares KeyedLock with a signal against the baseline without one.',
].join('\n');
const markdown = `${table}\n\n${notes}\n`;

console.log(`\n${markdown}`);
writeFileSync(
  fileURLToPath(new URL('./results.md', import.meta.url)),
  `# Benchmark results\n\nReproduce with \`pnpm --filter @egress-proxies/keyedlock bench\` (after \`pnpm --filter @egress-proxies/keyedlock build\`).\n\n${markdown}`,
);
