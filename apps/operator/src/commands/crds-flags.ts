import { FlagReader } from './flag-reader.js';
import { RUN_WORDING } from './run-flags.js';

/** The flags `crds` takes. */
export const CRDS_OPTIONS = { out: { type: 'string' } } as const;

/** `crds [--out DIR]`: anything else is refused, like every other command's flags. */
export function parseCrdsFlags(args: string[]): { out?: string } {
  const r = new FlagReader(args, CRDS_OPTIONS, RUN_WORDING, 'crds');
  const out = r.string('out');
  return out === undefined ? {} : { out };
}
