import {
  type CreateRequest,
  ErrorCode,
  permanentError,
  transientError,
  UID_LABEL,
} from '@egress-proxies/contract';
import { KubeApiError } from './api-error.js';
import type { PodView } from './backend.js';
import type { Context } from './context.js';
import { classify, KubernetesErrorCode } from './errors.js';
import { formatId } from './id.js';
import { isMarked } from './instance.js';
import { buildPod } from './pod.js';

/**
 * Creates the request's Pod and returns `namespace/name`. Submit-only: it returns once the API
 * server accepted the Pod. An existing Pod of that name is adopted only when it carries our mark
 * and the request's UID (or an empty one, from an older writer); anything else is Permanent and
 * left untouched. Creates of one name are serialised in this process; across processes the API
 * server's AlreadyExists gives the same outcome.
 */
export async function createInstance(ctx: Context, req: CreateRequest): Promise<string> {
  const { signal, logger } = ctx;
  const pod = buildPod(req, ctx.cfg);
  const ref = { namespace: pod.metadata?.namespace ?? req.namespace, name: req.name };
  const id = formatId(ref);
  logger.log(2, 'pod spec', {
    id,
    image: ctx.cfg.image,
    port: req.port,
    zone: req.placement?.zone ?? '',
    allowedSourceCIDRs: ctx.cfg.allowedSourceCIDRs.join(','),
    owner: pod.metadata?.ownerReferences?.[0]?.name ?? '',
  });
  return ctx.lock.withLock(
    id,
    async () => {
      try {
        await ctx.backend.createPod(signal, ref.namespace, pod);
        logger.log(1, 'create', { id, outcome: 'created' });
        return id;
      } catch (err) {
        if (!(KubeApiError.isInstance(err) && err.status === 409 && err.reason === 'AlreadyExists')) {
          throw classify(err, { notFound: 'Transient' });
        }
      }
      let existing: PodView;
      try {
        existing = await ctx.backend.readPod(signal, ref.namespace, ref.name);
      } catch (err) {
        // Gone between the create and the read (deleted meanwhile): the next attempt creates it.
        throw classify(err, { notFound: 'Transient' });
      }
      adoptable(existing, req, id);
      logger.log(1, 'create', { id, outcome: 'adopted' });
      return id;
    },
    signal ? { signal } : undefined,
  );
}

/** Throws unless `pod` is ours for this request. */
function adoptable(pod: PodView, req: CreateRequest, id: string): void {
  if (!isMarked(pod)) {
    throw permanentError(`Pod ${id} exists without the managed mark; refusing to adopt it`, {
      code: ErrorCode.UnmarkedInstance,
    });
  }
  const uid = pod.labels[UID_LABEL] ?? '';
  if (uid !== '' && uid !== req.uid) {
    throw permanentError(`Pod ${id} belongs to another Proxy (uid ${uid}, request uid ${req.uid})`, {
      code: ErrorCode.ForeignInstance,
    });
  }
  if (pod.deletionTimestamp) {
    throw transientError(`Pod ${id} is still being deleted; retry once it is gone`, {
      code: KubernetesErrorCode.PodTerminating,
    });
  }
}
