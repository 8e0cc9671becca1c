import type { ConformanceCase } from '../case.js';
import { checkerCases } from './checker.js';
import { closeCases } from './close.js';
import { createCases } from './create.js';
import { deleteCases } from './delete.js';
import { faultSweepCases } from './fault-sweep.js';
import { getCases } from './get.js';
import { listCases } from './list.js';
import { operationCases } from './operations.js';

const ALL: readonly ConformanceCase[] = Object.freeze([
  ...createCases,
  ...getCases,
  ...deleteCases,
  ...listCases,
  ...operationCases,
  ...faultSweepCases,
  ...closeCases,
  ...checkerCases,
]);

/** The numbered conformance list, in document order. */
export function conformanceCases(): readonly ConformanceCase[] {
  return ALL;
}
