import { KubeApiError } from './api-error.js';
import type { PodView } from './backend.js';
import type { Context } from './context.js';
import { classify } from './errors.js';
import { parseId } from './id.js';
import { isMarked } from './instance.js';

const isStatus = (err: unknown, status: number) => KubeApiError.isInstance(err) && err.status === status;

/**
 * Deletes one Pod and returns once the API server accepted the delete (the Pod then terminates
 * on its own). Absent is success; a Pod without our mark is left alone (also success: it is not
 * ours, so ours is gone). The delete carries the Pod's own metadata.uid as a precondition, so a
 * Pod recreated under the same name meanwhile is never removed by mistake.
 */
export async function deleteInstance(ctx: Context, id: string): Promise<void> {
  const { signal, logger } = ctx;
  const ref = parseId(id);
  await ctx.lock.withLock(
    id,
    async () => {
      let pod: PodView;
      try {
        pod = await ctx.backend.readPod(signal, ref.namespace, ref.name);
      } catch (err) {
        if (isStatus(err, 404)) {
          logger.log(1, 'delete', { id, outcome: 'absent' });
          return;
        }
        throw classify(err, { notFound: 'Transient' });
      }
      if (!isMarked(pod)) {
        logger.log(1, 'delete', { id, outcome: 'unmarked, left alone' });
        return;
      }
      if (pod.deletionTimestamp) {
        logger.log(1, 'delete', { id, outcome: 'already terminating' });
        return;
      }
      logger.log(2, 'delete precondition', { id, podUid: pod.podUid });
      try {
        await ctx.backend.deletePod(signal, ref.namespace, ref.name, pod.podUid);
      } catch (err) {
        if (isStatus(err, 404)) {
          logger.log(1, 'delete', { id, outcome: 'absent' });
          return;
        }
        // 409: the precondition failed, so the name now holds another Pod; the retry re-reads it.
        throw classify(err, { notFound: 'Transient' });
      }
      logger.log(1, 'delete', { id, outcome: 'deleted' });
    },
    signal ? { signal } : undefined,
  );
}
