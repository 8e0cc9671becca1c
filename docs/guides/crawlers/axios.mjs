// axios, with its own proxy option: rotation through the gateway, then a sticky session.
// PROXY is the gateway (http://[user:password@]host:port), TARGET the page to fetch (plain
// HTTP; for HTTPS targets give axios an https-proxy-agent as httpsAgent and proxy: false); prints
// the egress address the target saw for each request, as JSON.
import { Agent } from 'node:http';
import axios from 'axios';

const { PROXY, TARGET } = process.env;
const gateway = new URL(PROXY);
// The gateway's user, if PROXY names one (a gateway with users answers 407 to a request without).
const user = gateway.username
  ? { username: decodeURIComponent(gateway.username), password: decodeURIComponent(gateway.password) }
  : undefined;

// Node's default agent keeps connections alive, which would keep every request on one member:
// a fresh connection per request lets the gateway pick a member for each.
async function egress(auth) {
  const proxy = { protocol: 'http', host: gateway.hostname, port: Number(gateway.port), auth };
  const res = await axios.get(TARGET, { proxy, httpAgent: new Agent({ keepAlive: false }) });
  return res.data.ip;
}

// No session: each new connection may leave from another member.
const rotating = [];
for (let i = 0; i < 3; i++) rotating.push(await egress(user));

// A username ending in -session-<id> pins the session to one member (axios sends it as
// Proxy-Authorization).
const sticky = [];
for (let i = 0; i < 3; i++) sticky.push(await egress({ username: 'crawler-session-42', password: 'x' }));

console.log(JSON.stringify({ rotating, sticky }));
