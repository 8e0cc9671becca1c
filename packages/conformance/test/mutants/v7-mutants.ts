import type { CallOptions, LogFields, Logger, LogLevel } from '@egress-proxies/contract';
import {
  type MarkReading,
  REFERENCE_IPV4_EGRESS_PLAN,
  ReferenceProvider,
} from '../../src/reference/index.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

/** A logger that writes one message blank: the line is there, its fields too, but it says nothing. */
function blanking(inner: Logger, message: string): Logger {
  return {
    verbosity: inner.verbosity,
    log(level: LogLevel, msg: string, fields?: LogFields) {
      inner.log(level, msg === message ? '' : msg, fields);
    },
    child(fields: LogFields) {
      return blanking(inner.child(fields), message);
    },
  };
}

class BlankFetchedLine extends ReferenceProvider {
  protected override logger(opts?: CallOptions): Logger {
    return blanking(super.logger(opts), 'reference instance fetched');
  }
}

class ReportsEmptyEgress extends ReferenceProvider {
  // Every mark reads with an egress record, an empty one where no plan allocated anything.
  protected override readMark(metadata: string | undefined): MarkReading {
    const r = super.readMark(metadata);
    if (r.kind === 'marked') r.mark.egress ??= {};
    return r;
  }
}

class EgressOnlyWithBothFamilies extends ReferenceProvider {
  // Reads the egress back only when the mark holds an address of each family.
  protected override readMark(metadata: string | undefined): MarkReading {
    const r = super.readMark(metadata);
    if (r.kind === 'marked' && !(r.mark.egress?.ipv4 && r.mark.egress.ipv6)) delete r.mark.egress;
    return r;
  }
}

/** Mutants of the rules the kit's seventh version checks. */
export const V7_MUTANTS: readonly Mutant[] = [
  {
    name: "get's outcome line has an empty message",
    breaks: 'every line has a message (2.9)',
    caughtBy: ['GET-02', 'OPS-04'],
    make: sub(BlankFetchedLine),
  },
  {
    name: 'a provider with shared egress reports an empty egress record',
    breaks: 'Instance.egress is absent when the egress is shared',
    caughtBy: ['LIST-01'],
    make: sub(ReportsEmptyEgress),
  },
  {
    name: 'the egress is read back only when the plan has both families',
    breaks: 'planned egress: get and listByTag report the address of every planned family',
    caughtBy: ['CREATE-24'],
    harness: { egressPlan: REFERENCE_IPV4_EGRESS_PLAN },
    make: sub(EgressOnlyWithBothFamilies),
  },
];
