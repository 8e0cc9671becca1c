import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface KubeResponse {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

export interface KubeUser {
  username: string;
  token: string;
}

export function plainGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { timeout: 2000 }, (res) => {
      let b = '';
      res.on('data', (d: Buffer) => {
        b += d.toString();
      });
      res.on('end', () => resolve(b));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export function call(
  server: string,
  caPem: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeResponse> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${server}${path}`,
      {
        method,
        ca: caPem,
        timeout: 10_000,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(payload !== undefined
            ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export function kubeconfigYaml(server: string, caPem: string, user: KubeUser): string {
  const ca = Buffer.from(caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: test',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${JSON.stringify(user.username)}`,
    '  user:',
    `    token: ${user.token}`,
    'contexts:',
    '- name: test',
    '  context:',
    '    cluster: test',
    `    user: ${JSON.stringify(user.username)}`,
    'current-context: test',
    '',
  ].join('\n');
}
