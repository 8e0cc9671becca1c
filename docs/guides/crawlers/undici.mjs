// Node's undici (the library behind fetch): rotation through the gateway, then a sticky session.
// PROXY is the gateway (http://[user:password@]host:port), TARGET the page to fetch; prints the
// egress address the target saw for each request, as JSON.
import { ProxyAgent, request } from 'undici';

const { PROXY, TARGET } = process.env;

async function egress(dispatcher) {
  const res = await request(TARGET, { dispatcher });
  if (res.statusCode !== 200) throw new Error(`${TARGET} answered ${res.statusCode}`);
  return (await res.body.json()).ip;
}

// No username: each new connection may leave from another member. One agent per request keeps
// the connections apart, so the rotation shows.
const rotating = [];
for (let i = 0; i < 3; i++) {
  const agent = new ProxyAgent({ uri: PROXY });
  rotating.push(await egress(agent));
  await agent.close();
}

// A username ending in -session-<id> pins the session to one member (any password will do on a
// gateway without users; on one with users, the password of the user before -session-).
const session = new URL(PROXY);
session.username = 'crawler-session-42';
session.password = 'x';
const sticky = [];
for (let i = 0; i < 3; i++) {
  const agent = new ProxyAgent({ uri: session.href });
  sticky.push(await egress(agent));
  await agent.close();
}

console.log(JSON.stringify({ rotating, sticky }));
