// Crawlee (@crawlee/http's HttpCrawler, without the browser crawlers): rotation through the
// gateway, then one Crawlee session kept on one member. PROXY is the gateway
// (http://[user:password@]host:port), TARGET the page to fetch; prints the egress address the
// target saw for each request, as JSON.
import { Configuration, ProxyConfiguration } from '@crawlee/core';
import { HttpCrawler } from '@crawlee/http';

const { PROXY, TARGET } = process.env;

// Crawlee calls newUrlFunction with its session's id: in the username, it pins that session to a
// member. Without a session id (no session pool), each request may leave from another member.
const proxyConfiguration = new ProxyConfiguration({
  newUrlFunction: (sessionId) => {
    if (sessionId === undefined) return PROXY;
    const url = new URL(PROXY);
    url.username = `crawler-session-${sessionId}`;
    url.password = 'x';
    return url.href;
  },
});

async function crawl(options) {
  const seen = [];
  const crawler = new HttpCrawler(
    {
      proxyConfiguration,
      maxConcurrency: 1,
      maxRequestRetries: 0,
      additionalMimeTypes: ['application/json'],
      requestHandler: async ({ body }) => {
        seen.push(JSON.parse(body.toString()).ip);
      },
      ...options,
    },
    // In memory: nothing written to ./storage.
    new Configuration({ persistStorage: false }),
  );
  // Distinct URLs: Crawlee fetches each URL once.
  await crawler.run([1, 2, 3].map((i) => `${TARGET}?page=${i}`));
  return seen;
}

const rotating = await crawl({ useSessionPool: false });
// One session in the pool: every request is that session's, so it stays on one member.
const sticky = await crawl({ useSessionPool: true, sessionPoolOptions: { maxPoolSize: 1 } });
console.log(JSON.stringify({ rotating, sticky }));
