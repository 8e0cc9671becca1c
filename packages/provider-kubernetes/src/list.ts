import { type Instance, MANAGED_LABEL, MANAGED_VALUE } from '@egress-proxies/contract';
import { throwIfAborted } from '@egress-proxies/provider-utils';
import type { Context } from './context.js';
import { classify } from './errors.js';
import { isMarked, toInstance } from './instance.js';

/** The label selector every listing uses. */
export const MANAGED_SELECTOR = `${MANAGED_LABEL}=${MANAGED_VALUE}`;

/**
 * Every Pod carrying the managed mark: across all namespaces under the `proxy` namespace
 * policy, in the configured namespace under `fixed`. Paginated; a failed page fails the list.
 */
export async function listInstances(ctx: Context): Promise<Instance[]> {
  const { signal, logger } = ctx;
  const namespace = ctx.cfg.namespacePolicy === 'fixed' ? ctx.cfg.namespace : undefined;
  const out: Instance[] = [];
  let continueToken: string | undefined;
  let pages = 0;
  do {
    throwIfAborted(signal);
    let page: Awaited<ReturnType<Context['backend']['listPods']>>;
    try {
      page = await ctx.backend.listPods(signal, {
        labelSelector: MANAGED_SELECTOR,
        limit: ctx.listPageSize,
        ...(namespace ? { namespace } : {}),
        ...(continueToken ? { continueToken } : {}),
      });
    } catch (err) {
      throw classify(err, { notFound: 'Transient' });
    }
    pages += 1;
    for (const pod of page.items) if (isMarked(pod)) out.push(toInstance(pod));
    continueToken = page.continueToken;
  } while (continueToken);
  logger.log(1, 'listByTag', { outcome: 'ok', count: out.length, pages, namespace: namespace ?? '*' });
  if (logger.verbosity >= 2)
    for (const i of out) logger.log(2, 'listed', { id: i.id, uid: i.uid, state: i.state });
  return out;
}
