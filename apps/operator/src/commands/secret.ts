import type { Command } from './command.js';
import { SECRET_OPTIONS, SECRET_USAGE } from './secret-usage.js';

/** `secret KIND`: the Secret for a provider's credential files, printed or applied. */
export const secretCommand: Command = {
  name: 'secret',
  synopsis: 'secret KIND',
  summary: 'print (or --apply) the Secret for kvm-ssh, proxmox-token or gcp-key credentials',
  usage: SECRET_USAGE,
  flags: Object.keys(SECRET_OPTIONS),
  async run(args, io) {
    return (await import('./secret-command.js')).printSecret(args, io);
  },
};
