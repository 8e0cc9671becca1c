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
import { faultSweepCases } from './fault-sweep.js';
import { getCases } from './get.js';
import { idGarbageCases } from './id-garbage.js';
import { listCases } from './list.js';
import { listStrictCases } from './list-strict.js';
import { operationCases } from './operations.js';

const ALL: readonly ConformanceCase[] = Object.freeze([
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
]);

/** The numbered conformance list, in document order. */
export function conformanceCases(): readonly ConformanceCase[] {
  return ALL;
}
