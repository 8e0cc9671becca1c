import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { ErrorCode, permanentError, transientError } from '@egress-proxies/contract';
import { KvmErrorCode } from './errors.js';

/** An opened image download: the announced length and the body, not yet read. */
export interface ImageResponse {
  contentLength: number;
  body: Readable;
}

/** The image transport seam: opens a GET; injectable so a user can route through their own proxy. */
export type ImageFetcher = (url: string, o: { signal?: AbortSignal }) => Promise<ImageResponse>;

const MAX_REDIRECTS = 5;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/** Classifies an HTTP answer: 4xx Permanent except 408/429; 5xx and 429 Transient. */
export function httpStatusError(url: string, status: number): Error {
  const message = `image download from ${hostOf(url)} answered HTTP ${status}`;
  const details = { status };
  if (status >= 500 || status === 429 || status === 408)
    return transientError(message, { code: KvmErrorCode.ImageDownloadFailed, details });
  return permanentError(message, { code: KvmErrorCode.ImageDownloadFailed, details });
}

/** The default fetcher: node's http/https, streaming, following a few redirects. */
export const httpFetcher: ImageFetcher = async (url, o) => {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      // Fetched on use: importing the package loads no HTTP client.
      const { request } = process.getBuiltinModule(current.startsWith('https:') ? 'node:https' : 'node:http');
      const req = request(current, { method: 'GET', ...(o.signal ? { signal: o.signal } : {}) }, resolve);
      req.on('error', (err) =>
        reject(
          err.name === 'AbortError'
            ? err
            : transientError(`image download from ${hostOf(current)} failed: ${err.message}`, {
                code: ErrorCode.Unreachable,
              }),
        ),
      );
      req.end();
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      current = new URL(res.headers.location, current).toString();
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw httpStatusError(current, status);
    }
    const len = Number(res.headers['content-length']);
    if (!res.headers['content-length'] || !Number.isSafeInteger(len) || len <= 0) {
      res.destroy();
      throw permanentError(
        `image download from ${hostOf(current)} sent no Content-Length; the image size must be known before it is streamed into the pool`,
        { code: KvmErrorCode.ImageDownloadFailed },
      );
    }
    return { contentLength: len, body: res };
  }
  throw permanentError(`image download from ${hostOf(url)} redirected more than ${MAX_REDIRECTS} times`, {
    code: KvmErrorCode.ImageDownloadFailed,
  });
};
