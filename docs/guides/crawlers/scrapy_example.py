"""Scrapy: rotation through the gateway, then a sticky session, set per request in meta["proxy"].

PROXY is the gateway (http://[user:password@]host:port), TARGET the page to fetch; prints the
egress address the target saw for each request, as JSON.
"""
import json
import os
from urllib.parse import urlsplit, urlunsplit

import scrapy
from scrapy.crawler import CrawlerProcess

proxy = os.environ["PROXY"]
target = os.environ["TARGET"]
parts = urlsplit(proxy)
# Scrapy's HttpProxyMiddleware turns the credentials into a Proxy-Authorization header.
host = parts.netloc.rpartition("@")[2]  # without PROXY's own user, if it has one
session_proxy = urlunsplit(parts._replace(netloc=f"crawler-session-42:x@{host}"))
seen = {"rotating": [], "sticky": []}


class EgressSpider(scrapy.Spider):
    name = "egress"
    custom_settings = {
        # One request at a time on a fresh connection, so the rotation shows.
        "CONCURRENT_REQUESTS": 1,
        "DEFAULT_REQUEST_HEADERS": {"Connection": "close"},
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
    }

    def start_requests(self):
        for kind, via in (("rotating", proxy), ("sticky", session_proxy)):
            for i in range(3):
                yield scrapy.Request(
                    f"{target}?{kind}={i}",
                    meta={"proxy": via, "kind": kind},
                    dont_filter=True,
                    callback=self.parse,
                )

    def parse(self, response):
        seen[response.meta["kind"]].append(json.loads(response.text)["ip"])


process = CrawlerProcess()
process.crawl(EgressSpider)
process.start()
if len(seen["rotating"]) != 3 or len(seen["sticky"]) != 3:
    raise SystemExit(f"not every request answered: {seen}")
print(json.dumps(seen))
