/**
 * How the commands this prints are spelled: `egress-proxies` when installed, or what the caller
 * says runs it (`npm start` in a clone sets `npm run egress-proxies --`, where no bin is on PATH).
 */
export const SELF_COMMAND_ENV = 'EGRESS_PROXIES_COMMAND';

export function selfCommand(): string {
  return process.env[SELF_COMMAND_ENV]?.trim() || 'egress-proxies';
}

/** A word as a shell reads it back: as it is when it is safe, else in single quotes. */
export const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
