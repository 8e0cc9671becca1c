import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from './command.js';
import { CRDS_OPTIONS, parseCrdsFlags } from './crds-flags.js';
import { FlagError } from './flag-error.js';

export const CRDS_USAGE = `usage: egress-proxies crds [--out DIR]

  --out DIR                     write one file per CRD into DIR (default: print them, separated by ---)
`;

/** `crds`: the CRD manifests, printed or written one file each. */
export const crdsCommand: Command = {
  name: 'crds',
  synopsis: 'crds [--out DIR]',
  summary: 'print the CRD manifests, or write them into DIR',
  usage: CRDS_USAGE,
  flags: Object.keys(CRDS_OPTIONS),
  async run(args, io) {
    const files = (await import('../api/crd.js')).crdFiles();
    const { out: dir } = parseCrdsFlags(args);
    if (dir !== undefined) {
      if (!dir) throw new FlagError('--out: a directory is required');
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      return 0;
    }
    io.out(Object.values(files).join('---\n'));
    return 0;
  },
};
