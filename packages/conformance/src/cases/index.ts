import type { ConformanceCase } from '../case.js';
import { adoptionCases } from './adoption.js';
import { badRequestCases } from './bad-request.js';
import { checkerCases } from './checker.js';
import { checkerRoundCases } from './checker-rounds.js';
import { closeCases } from './close.js';
import { cloudInitCases } from './cloud-init.js';
import { concurrencyCases } from './concurrency.js';
import { createCases } from './create.js';
import { deleteCases } from './delete.js';
import { deleteRaceCases } from './delete-race.js';
import { egressCases } from './egress.js';
import { faultSweepCases } from './fault-sweep.js';
import { getCases } from './get.js';
import { idGarbageCases } from './id-garbage.js';
import { listCases } from './list.js';
import { listStrictCases } from './list-strict.js';
import { logFieldCases } from './log-fields.js';
import { markCases } from './marks.js';
import { operationCases } from './operations.js';
import { requestVariantCases } from './request-variants.js';
import { secretCases } from './secrets.js';
import { startFaultCases } from './start-faults.js';
import { tracingCases } from './tracing.js';

const GROUPS = ['create', 'get', 'delete', 'listByTag', 'operations', 'checker'];
const rank = (c: ConformanceCase) =>
  GROUPS.indexOf(c.group) * 1000 + Number(c.id.slice(c.id.indexOf('-') + 1));

const ALL: readonly ConformanceCase[] = Object.freeze(
  [
    ...createCases,
    ...adoptionCases,
    ...cloudInitCases,
    ...badRequestCases,
    ...getCases,
    ...idGarbageCases,
    ...deleteCases,
    ...deleteRaceCases,
    ...listCases,
    ...listStrictCases,
    ...operationCases,
    ...faultSweepCases,
    ...closeCases,
    ...concurrencyCases,
    ...checkerCases,
    ...checkerRoundCases,
    ...secretCases,
    ...startFaultCases,
    ...markCases,
    ...tracingCases,
    ...logFieldCases,
    ...requestVariantCases,
    ...egressCases,
  ].sort((a, b) => rank(a) - rank(b)),
);

/** The numbered conformance list, in document order. */
export function conformanceCases(): readonly ConformanceCase[] {
  return ALL;
}
