import type { GoogleAuth } from 'google-auth-library';

/** What the REST client needs from credentials: headers for one request. */
export interface RequestAuth {
  getRequestHeaders(url?: string): Promise<Headers | Record<string, string>>;
}

export const COMPUTE_SCOPE = 'https://www.googleapis.com/auth/compute';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export interface AuthOptions {
  /** A service-account key file; Application Default Credentials (env, workload identity, metadata) when absent. */
  keyFile?: string;
  /**
   * Where service-account tokens are exchanged instead of Google's endpoint (a private endpoint
   * or a test server). google-auth-library has no option for it, so its fetch is wrapped.
   */
  tokenUrl?: string;
}

/**
 * Credentials through google-auth-library: ADC by default, a key file when given. The library
 * (the heaviest part of this package) is imported on the first request, not with the package.
 */
export function createAuth(options: AuthOptions = {}): RequestAuth {
  let auth: Promise<GoogleAuth> | undefined;
  return {
    getRequestHeaders(url) {
      auth ??= import('google-auth-library').then((m) => googleAuth(m.GoogleAuth, options));
      // A failed import is not kept: the next request tries again.
      auth.catch(() => {
        auth = undefined;
      });
      return auth.then((a) => a.getRequestHeaders(url));
    },
  };
}

function googleAuth(GoogleAuthClass: typeof GoogleAuth, options: AuthOptions): GoogleAuth {
  const tokenUrl = options.tokenUrl;
  const fetchImplementation = tokenUrl
    ? (input: string | URL | Request, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        return fetch(url === GOOGLE_TOKEN_URL ? tokenUrl : input, init);
      }
    : undefined;
  return new GoogleAuthClass({
    scopes: [COMPUTE_SCOPE],
    ...(options.keyFile ? { keyFilename: options.keyFile } : {}),
    ...(fetchImplementation ? { clientOptions: { transporterOptions: { fetchImplementation } } } : {}),
  });
}

/** No credentials: for a local fake or a proxy that authenticates on its own. */
export const noAuth: RequestAuth = {
  async getRequestHeaders() {
    return {};
  },
};

/** Normalises either header shape to a plain record. */
export function headerRecord(h: Headers | Record<string, string>): Record<string, string> {
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    const out: Record<string, string> = {};
    (h as Headers).forEach((v, k) => {
      out[k] = v;
    });
    return out;
  }
  return { ...(h as Record<string, string>) };
}
