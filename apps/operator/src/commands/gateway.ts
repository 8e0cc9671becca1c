import type { Command } from './command.js';
import { GATEWAY_OPTIONS, parseGatewayFlags } from './gateway-flags.js';
import { GATEWAY_USAGE } from './gateway-usage.js';

/** `gateway`: one HTTP proxy in front of a pool's members (or of fixed ones). */
export const gatewayCommand: Command = {
  name: 'gateway',
  summary: 'the endpoint of a ProxyPool (or of fixed members): one HTTP proxy in front of many',
  usage: GATEWAY_USAGE,
  flags: Object.keys(GATEWAY_OPTIONS),
  trapsSignals: true,
  async run(args, io) {
    const flags = parseGatewayFlags(args);
    const { serveGateway } = await import('./gateway-run.js');
    return serveGateway(flags, io.interrupted);
  },
};
