import { randomUUID } from 'node:crypto';
import { type CreateRequest, instanceName, type ProviderError } from '@egress-proxies/contract';

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    return err as ProviderError;
  }
  throw new Error('expected a rejection');
}

/** A create request for a fresh Proxy in `namespace`, no placement. */
export const createRequest = (namespace: string, over: Partial<CreateRequest> = {}): CreateRequest => ({
  name: instanceName(namespace, randomUUID()),
  namespace,
  uid: randomUUID(),
  port: 3128,
  placement: {},
  ...over,
});
