import { ErrorCode, permanentError, transientError } from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import { DomainState, ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { Domain, KvmBackend } from './backend.js';
import type { Core, Op } from './core.js';
import { hasCode, KvmErrorCode } from './errors.js';
import { type Mark, parseMark } from './metadata.js';
import { isUp, stateName } from './state.js';

/** A domain looked up by name, or undefined when libvirt has none. */
export async function lookupDomain(b: KvmBackend, name: string, op: Op): Promise<Domain | undefined> {
  try {
    return await b.domainLookupByName(name, op.call);
  } catch (err) {
    if (hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN)) return undefined;
    throw err;
  }
}

/**
 * The domain's mark in our namespace: `undefined` when it has none (not ours). An element that
 * does not parse is Permanent.
 */
export async function readMark(core: Core, b: KvmBackend, dom: Domain, op: Op): Promise<Mark | undefined> {
  let xml: string;
  try {
    xml = await b.domainGetMetadata(dom, core.flavour.namespace, op.call);
  } catch (err) {
    if (hasCode(err, ErrorNumber.VIR_ERR_NO_DOMAIN_METADATA)) return undefined;
    throw err;
  }
  op.log.log(2, 'domain metadata', { domain: dom.name, metadata: xml });
  let mark: Mark;
  try {
    mark = parseMark(xml);
  } catch (err) {
    // The refusal names the domain it is about.
    throw permanentError(`domain ${dom.name}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  return mark.managed ? mark : undefined;
}

/** The adoption guard: no mark, or a non-empty UID that differs, is Permanent. */
export function guardAdoption(name: string, mark: Mark | undefined, uid: string): void {
  if (!mark) {
    throw permanentError(
      `domain ${name} exists but does not carry this provider's mark; it is left untouched`,
      {
        code: ErrorCode.UnmarkedInstance,
      },
    );
  }
  if (mark.uid !== '' && mark.uid !== uid) {
    throw permanentError(
      `domain ${name} belongs to another owner (uid ${mark.uid}, this request ${uid}); it is left untouched`,
      { code: ErrorCode.ForeignInstance },
    );
  }
}

/**
 * Starts the domain if needed and waits until it runs. A paused domain is resumed, a
 * pmsuspended one is reset and started (a proxy VM keeps no state worth waking), anything
 * inactive is started; then the state is polled until running, Transient when the wait ends.
 */
export async function ensureRunning(core: Core, b: KvmBackend, dom: Domain, op: Op): Promise<void> {
  const { state } = await b.domainGetState(dom, op.call);
  if (isUp(state)) return;
  if (state === DomainState.PAUSED) {
    await b.domainResume(dom, op.call);
  } else {
    if (state === DomainState.PMSUSPENDED) {
      await b.domainDestroy(dom, op.call).catch((err) => {
        if (!hasCode(err, ErrorNumber.VIR_ERR_OPERATION_INVALID)) throw err;
      });
    }
    try {
      await b.domainCreate(dom, op.call);
    } catch (err) {
      // Already running (a concurrent start, or it came up on its own).
      if (!hasCode(err, ErrorNumber.VIR_ERR_OPERATION_INVALID)) throw err;
    }
  }
  const deadline = performance.now() + core.startTimeoutMs;
  for (;;) {
    const { state: now } = await b.domainGetState(dom, op.call);
    if (isUp(now)) return;
    const waiting = now === DomainState.NOSTATE || now === DomainState.PAUSED;
    if (!waiting || performance.now() >= deadline) {
      throw transientError(`domain ${dom.name} is ${stateName(now)} after being started`, {
        code: KvmErrorCode.NotRunning,
        details: { state: stateName(now) },
      });
    }
    await sleep(core.pollIntervalMs, op.signal);
  }
}
