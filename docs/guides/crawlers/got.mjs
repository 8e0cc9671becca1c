// Got, through hpagent's proxy agents: rotation through the gateway, then a sticky session.
// PROXY is the gateway (http://[user:password@]host:port), TARGET the page to fetch; prints the
// egress address the target saw for each request, as JSON.
import got from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';

const { PROXY, TARGET } = process.env;

// hpagent sends the credentials in the proxy URL as Proxy-Authorization. keepAlive off: each
// request opens its own connection, so the gateway picks a member for each.
async function egress(proxy) {
  const options = { proxy, keepAlive: false };
  const agent = { http: new HttpProxyAgent(options), https: new HttpsProxyAgent(options) };
  return (await got(TARGET, { agent, retry: { limit: 0 } }).json()).ip;
}

// No username: each new connection may leave from another member.
const rotating = [];
for (let i = 0; i < 3; i++) rotating.push(await egress(PROXY));

// A username ending in -session-<id> pins the session to one member.
const session = new URL(PROXY);
session.username = 'crawler-session-42';
session.password = 'x';
const sticky = [];
for (let i = 0; i < 3; i++) sticky.push(await egress(session.href));

console.log(JSON.stringify({ rotating, sticky }));
