import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What a reviewer says of a bearer token: who it is, and whether they may read the page. */
export interface TokenVerdict {
  /** False for a token nobody issued, an expired or a revoked one. */
  authenticated: boolean;
  /** The user the token belongs to (for the log), when authenticated. */
  user?: string;
  /** Whether that user may read the page. */
  allowed: boolean;
}

/** Decides on a token (in the cluster: TokenReview, then SubjectAccessReview). */
export type TokenReviewer = (token: string, signal: AbortSignal) => Promise<TokenVerdict>;

/** A request let through, or refused with the status and a message that never holds the token. */
export type AuthDecision =
  | { ok: true; user: string }
  | { ok: false; status: 401 | 403 | 503; message: string };

export type Authenticate = (headers: IncomingHttpHeaders, signal: AbortSignal) => Promise<AuthDecision>;

export interface BearerAuthOptions {
  review: TokenReviewer;
  /** How long a verdict is reused for the same token (default 10 s): a page polls and streams. */
  cacheMs?: number;
  /** At most this many tokens' verdicts are kept (default 1000); the oldest go first. */
  cacheSize?: number;
  now?: () => number;
}

/** The token of an `Authorization: Bearer <token>` header; undefined without one. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return m?.[1];
}

/**
 * Authentication by bearer token, decided by `review` and cached per token. The cache is keyed by
 * the token's SHA-256, so the token itself is kept nowhere; a token is never in a message, and a
 * failed review (the API server unreachable) is a 503, not a pass.
 */
export function bearerAuth(opts: BearerAuthOptions): Authenticate {
  const now = opts.now ?? Date.now;
  const cacheMs = opts.cacheMs ?? 10_000;
  const cacheSize = opts.cacheSize ?? 1000;
  const cache = new Map<string, { at: number; verdict: TokenVerdict }>();
  return async (headers, signal) => {
    const token = bearerToken(headers);
    if (!token)
      return {
        ok: false,
        status: 401,
        message: 'authentication required: send Authorization: Bearer <token>',
      };
    const key = createHash('sha256').update(token).digest('hex');
    const hit = cache.get(key);
    let verdict = hit && now() - hit.at < cacheMs ? hit.verdict : undefined;
    if (!verdict) {
      try {
        verdict = await opts.review(token, signal);
      } catch {
        return { ok: false, status: 503, message: 'cannot verify the token now; try again' };
      }
      cache.delete(key);
      cache.set(key, { at: now(), verdict });
      while (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    }
    if (!verdict.authenticated) return { ok: false, status: 401, message: 'the token was not accepted' };
    if (!verdict.allowed)
      return {
        ok: false,
        status: 403,
        message: `${verdict.user ?? 'this user'} may not read the status page`,
      };
    return { ok: true, user: verdict.user ?? '' };
  };
}
