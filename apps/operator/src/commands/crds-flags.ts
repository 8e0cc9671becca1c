import { FlagReader } from './flag-reader.js';
import { RUN_WORDING } from './run-flags.js';

/** `crds [--out DIR]`: anything else is refused, like every other command's flags. */
export function parseCrdsFlags(args: string[]): { out?: string } {
  const r = new FlagReader(args, { out: { type: 'string' } }, RUN_WORDING, 'crds');
  const out = r.string('out');
  return out === undefined ? {} : { out };
}
