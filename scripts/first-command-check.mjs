#!/usr/bin/env node
// CI's check of the README's first command, run in the fresh clone CI works in: `npm start --
// --once` must exit 0, report all three sample proxies Ready, print a curl line it verified (through
// the pool's gateway: three egress addresses, and one for a sticky session), and leave no proxy behind.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync('npm', ['start', '--', '--once', '--output', 'plain'], {
  cwd: root,
  encoding: 'utf8',
  env: process.env,
  timeout: 15 * 60_000,
});
const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
process.stdout.write(out);
const failures = [];
if (r.status !== 0) failures.push(`npm start -- --once exited ${r.status ?? r.signal}`);
if (!/all 3 proxies are Ready\./.test(out)) failures.push('no "all 3 proxies are Ready." line');
if (!/^try: curl -x http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+\/$/m.test(out))
  failures.push('no curl -x line through a loopback proxy to the loopback echo target');
if (!/^checked: curl -x .* answered 200/m.test(out)) failures.push('the curl line was not verified');
// The pool's gateway: three requests from three distinct members, one session on one member.
const spread = /^checked: curl -x .* answered 200 3 times; the target saw (\S+), (\S+), (\S+)$/m.exec(out);
if (!spread || new Set(spread.slice(1)).size !== 3)
  failures.push('three requests through the gateway did not leave from three different addresses');
if (!/^checked: session \S+ answered 200 3 times; the target saw \S+ each time$/m.test(out))
  failures.push('a sticky session through the gateway was not verified');
if (!/cleaned up: deleted 3 instance\(s\)/.test(out)) failures.push('the proxies were not deleted');
// A newcomer's screen: a line per package while building, no telemetry notice, no bin warnings,
// and the command it runs spelled the way it runs from the clone.
if (!/^\S+:build: cache (hit|miss|bypass)/m.test(out))
  failures.push('no progress line per package while building');
if (/telemetry/i.test(out)) failures.push("Turborepo's telemetry notice was printed");
if (/Failed to create bin/.test(out)) failures.push('pnpm warned that it could not link a bin');
if (!/^=== npm run egress-proxies -- up /m.test(out))
  failures.push('the up command is not printed as `npm run egress-proxies -- up ...`');
const instances = join(root, 'examples/standalone/.state/local/instances');
if (existsSync(instances) && readdirSync(instances).length > 0)
  failures.push(`instances left in ${instances}: ${readdirSync(instances).join(', ')}`);
// Counted in the test command's closing line like any other check.
mkdirSync(join(root, '.test-results'), { recursive: true });
writeFileSync(
  join(root, '.test-results', 'first-command.json'),
  JSON.stringify({ passed: failures.length ? 0 : 1, failed: failures.length ? 1 : 0, failures }, null, 2),
);
if (failures.length) {
  console.error(`\nfirst command check FAILED:\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log('\nfirst command check passed');
