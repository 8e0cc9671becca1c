import { request } from 'node:http';

/** The addresses a target saw for `count` GETs through a gateway, optionally as one sticky session. */
export async function egressThrough(
  gatewayUrl: string,
  target: string,
  opts: { count: number; session?: string; signal?: AbortSignal },
): Promise<string[]> {
  const gw = new URL(gatewayUrl);
  const out: string[] = [];
  for (let i = 0; i < opts.count; i++) {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({
        host: gw.hostname,
        port: Number(gw.port),
        path: target,
        agent: false,
        headers: {
          connection: 'close',
          ...(opts.session
            ? {
                'proxy-authorization': `Basic ${Buffer.from(`demo-session-${opts.session}:x`).toString('base64')}`,
              }
            : {}),
        },
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(text)
            : reject(new Error(`answered ${res.statusCode}: ${text.trim()}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
    const ip = (JSON.parse(body) as { ip?: unknown }).ip;
    if (typeof ip !== 'string') throw new Error(`the target answered without an "ip" field: ${body.trim()}`);
    out.push(ip);
  }
  return out;
}
