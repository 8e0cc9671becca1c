import { readFile, stat } from 'node:fs/promises';
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
 *
 * The key file (`keyFile`, else `$GOOGLE_APPLICATION_CREDENTIALS`) is looked at before each
 * request: when it changed (a rotated Secret mounted there), the next request loads it afresh,
 * since the library keeps the key it loaded first for good. Its `token_uri` is where tokens are
 * exchanged (unless `tokenUrl` says otherwise), as other Google client libraries do.
 */
export function createAuth(options: AuthOptions = {}): RequestAuth {
  let current: { auth: Promise<GoogleAuth>; stamp: string } | undefined;
  return {
    async getRequestHeaders(url) {
      const file = options.keyFile ?? process.env.GOOGLE_APPLICATION_CREDENTIALS;
      const stamp = file ? await fileStamp(file) : '';
      if (!current || current.stamp !== stamp) {
        const auth = import('google-auth-library').then(async (m) => {
          const tokenUrl = options.tokenUrl ?? (file ? await tokenUriOf(file) : undefined);
          return googleAuth(m.GoogleAuth, { ...options, ...(tokenUrl ? { tokenUrl } : {}) });
        });
        const entry = { auth, stamp };
        current = entry;
        // A failed import is not kept: the next request tries again.
        auth.catch(() => {
          if (current === entry) current = undefined;
        });
      }
      return current.auth.then((a) => a.getRequestHeaders(url));
    },
  };
}

/** What identifies one version of a file (a Secret rotation replaces it: new inode or mtime). */
async function fileStamp(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

/** The `token_uri` of a key file when it names another endpoint than Google's; never the key. */
async function tokenUriOf(path: string): Promise<string | undefined> {
  try {
    const uri = (JSON.parse(await readFile(path, 'utf8')) as { token_uri?: unknown }).token_uri;
    return typeof uri === 'string' && uri !== GOOGLE_TOKEN_URL && URL.canParse(uri) ? uri : undefined;
  } catch {
    // The library reads the file itself and reports what is wrong with it.
    return undefined;
  }
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
