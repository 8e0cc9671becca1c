// Runs inside the proxy-side network namespace (`ip netns exec`), so the provider's proxies start
// there: creates proxies from an egress plan with the built package, sends requests through them
// to the echo server in the "internet" namespace, deletes them, and prints what the echo saw.
// Usage: node netns-driver.mjs <json: {stateDir, egress, targets: {v4, v6}, proxies, v6Requests}>
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { createLocalProvider } from '../dist/index.js';

const args = JSON.parse(process.argv[2]);

function viaProxy(inst, target) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: inst.ip, port: inst.port, path: target, headers: { host: new URL(target).host }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(body).remoteAddress)
            : reject(new Error(`${target} through ${inst.id}: ${res.statusCode} ${body}`)),
        );
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${target} through ${inst.id} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const provider = createLocalProvider(
  { stateDir: args.stateDir, engine: 'node', portRange: { min: 24100, max: 24149 }, egress: args.egress },
  { name: 'local-netns' },
);
const ids = [];
const out = [];
try {
  for (let i = 0; i < args.proxies; i++) {
    const proxyName = `netns-${i}`;
    ids.push(
      await provider.create({
        name: `tests-${proxyName}-${randomUUID().slice(0, 8)}`,
        namespace: 'tests',
        proxyName,
        uid: randomUUID(),
        port: 3128,
        placement: {},
      }),
    );
  }
  for (const id of ids) {
    const inst = await provider.get(id);
    const v4Seen = await viaProxy(inst, args.targets.v4);
    const v6Seen = [];
    for (let n = 0; n < args.v6Requests; n++) v6Seen.push(await viaProxy(inst, args.targets.v6));
    out.push({ id, egress: inst.egress, v4Seen, v6Seen });
  }
} finally {
  for (const id of ids) await provider.delete(id).catch(() => {});
}
process.stdout.write(`${JSON.stringify(out)}\n`);
