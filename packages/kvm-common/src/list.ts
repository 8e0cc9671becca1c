import { type Instance, InstanceState, isAbortError } from '@egress-proxies/contract';
import { ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { Domain, KvmBackend } from './backend.js';
import type { KvmHost } from './config.js';
import type { Context, Core, Op } from './core.js';
import { hasCode } from './errors.js';
import { formatProviderId } from './id.js';
import { type Mark, parseMark } from './metadata.js';

/** Reads every domain's mark on one connection, all requests in flight at once. */
export async function readMarks(
  core: Core,
  b: KvmBackend,
  doms: readonly Domain[],
  op: Op,
): Promise<(Mark | undefined)[]> {
  return Promise.all(
    doms.map(async (d) => {
      try {
        const mark = parseMark(await b.domainGetMetadata(d, core.flavour.namespace, op.call));
        return mark.managed ? mark : undefined;
      } catch (err) {
        if (op.signal?.aborted || isAbortError(err)) throw err;
        if (!hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA, ErrorNumber.VIR_ERR_NO_DOMAIN)) {
          // 2.9: a line about an instance carries `name`; `domain` kept for existing queries.
          op.log.log(1, 'skipping a domain whose metadata cannot be read', {
            name: d.name,
            domain: d.name,
            error: err instanceof Error ? err.message : String(err),
          });
        }
        return undefined;
      }
    }),
  );
}

async function listHost(core: Core, host: KvmHost, op: Op): Promise<Instance[]> {
  const b = await core.hosts.get(host, op.call);
  const doms = await b.connectListAllDomains(op.call);
  const marks = await readMarks(core, b, doms, op);
  const out: Instance[] = [];
  doms.forEach((d, i) => {
    const mark = marks[i];
    if (!mark) return;
    out.push({
      id: formatProviderId(host.name, d.name),
      uid: mark.uid,
      // Only what the listing says: an active domain (id >= 0) is at most Provisioning without
      // an address lookup, an inactive one Stopped.
      state: d.id >= 0 ? InstanceState.Provisioning : InstanceState.Stopped,
      ...(mark.createdAt ? { createdAt: mark.createdAt } : {}),
      ...(mark.installation ? { installation: mark.installation } : {}),
      ...(mark.egress ? { egress: { ...mark.egress } } : {}),
    });
  });
  return out;
}

/** Every marked domain on every host, in config order; a host that fails fails the call. */
export async function listInstances(ctx: Context): Promise<Instance[]> {
  const perHost = await Promise.all(ctx.config.hosts.map((h) => listHost(ctx, h, ctx)));
  const all = perHost.flat();
  ctx.log.log(1, `${ctx.flavour.type} domains listed`, {
    count: all.length,
    hosts: ctx.config.hosts.length,
  });
  ctx.log.log(2, `${ctx.flavour.type} listed ids`, { ids: all.map((i) => i.id) });
  return all;
}
