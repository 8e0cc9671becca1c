import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The demo's probe target: a loopback HTTP server answering every request with the caller's
 * address as JSON (`{"ip": ...}`), which the probe records as the egress IP.
 */
export async function startEchoServer(
  port = 0,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const ip = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    res.end(`${JSON.stringify({ ip })}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the demo never listens on, or sends to, anything else.
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
