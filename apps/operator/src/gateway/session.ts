/** What a client asked for in its proxy credentials and headers. */
export interface ClientIdentity {
  /** The user part of the proxy username, without the session suffix. */
  user?: string;
  password?: string;
  /** A sticky-session id, from `<user>-session-<id>` or the session header. */
  session?: string;
}

/** The request header that carries a session id when the username cannot. */
export const SESSION_HEADER = 'x-egress-session';
const SESSION_SUFFIX = /^(.*)-session-([A-Za-z0-9_.~-]{1,128})$/;

/** Reads `Proxy-Authorization: Basic ...` and the session header; never throws on bad input. */
export function clientIdentity(headers: Record<string, string | string[] | undefined>): ClientIdentity {
  const out: ClientIdentity = {};
  const auth = headers['proxy-authorization'];
  const value = Array.isArray(auth) ? auth[0] : auth;
  const m = value ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value) : null;
  if (m?.[1]) {
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const name = colon >= 0 ? decoded.slice(0, colon) : decoded;
    Object.assign(out, credentialsIdentity(name, colon >= 0 ? decoded.slice(colon + 1) : ''));
  }
  const header = headers[SESSION_HEADER];
  const h = Array.isArray(header) ? header[0] : header;
  if (!out.session && h && /^[A-Za-z0-9_.~-]{1,128}$/.test(h)) out.session = h;
  return out;
}

/**
 * A username and password as a client gave them (Basic auth, or SOCKS5's RFC 1929 exchange): the
 * user, and the session id a `<user>-session-<id>` name carries.
 */
export function credentialsIdentity(name: string, password: string): ClientIdentity {
  const s = SESSION_SUFFIX.exec(name);
  const out: ClientIdentity = { user: s ? s[1] : name, password };
  if (s?.[2]) out.session = s[2];
  return out;
}
