// One create with an uncached image in a process of its own, so its peak RSS is the create's.
// Prints one JSON line: {ms, maxRssMiB, downloadMs}.
import { createLogger } from '@egress-proxies/contract';
import { createKvm2Provider } from '../dist/index.js';

const { config, request } = JSON.parse(process.argv[2]);
let downloadMs;
const logger = createLogger({
  verbosity: 1,
  sink: (l) => {
    if (l.msg === 'base image cached') downloadMs = l.durationMs;
  },
});
const provider = createKvm2Provider(config, { name: 'kvm2-bench' });
const t0 = performance.now();
const id = await provider.create(request, { logger });
const ms = performance.now() - t0;
const maxRssMiB = process.resourceUsage().maxRSS / 1024;
await provider.delete(id);
await provider.close();
console.log(JSON.stringify({ ms, maxRssMiB, downloadMs }));
