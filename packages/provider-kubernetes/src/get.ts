import { type Instance, notFoundError } from '@egress-proxies/contract';
import type { Context } from './context.js';
import { classify } from './errors.js';
import { parseId } from './id.js';
import { isMarked, toInstance } from './instance.js';

/** Reads one Pod; NotFound when it is absent or carries no managed mark. */
export async function getInstance(ctx: Context, id: string): Promise<Instance> {
  const { signal, logger } = ctx;
  const ref = parseId(id);
  let pod: Awaited<ReturnType<Context['backend']['readPod']>>;
  try {
    pod = await ctx.backend.readPod(signal, ref.namespace, ref.name);
  } catch (err) {
    const e = classify(err, { notFound: 'NotFound' });
    logger.log(1, 'get', { id, outcome: e.kind });
    throw e;
  }
  if (!isMarked(pod)) {
    logger.log(1, 'get', { id, outcome: 'unmarked' });
    throw notFoundError(`Pod ${id} exists but carries no managed mark`);
  }
  const inst = toInstance(pod);
  logger.log(1, 'get', { id, outcome: 'found', state: inst.state });
  logger.log(2, 'pod status', {
    id,
    phase: pod.phase ?? '',
    podIP: pod.podIP ?? '',
    deleting: pod.deletionTimestamp !== undefined,
  });
  return inst;
}
