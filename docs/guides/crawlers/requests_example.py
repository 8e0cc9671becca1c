"""Python requests: rotation through the gateway, then a sticky session.

PROXY is the gateway (http://[user:password@]host:port), TARGET the page to fetch; prints the
egress address the target saw for each request, as JSON.
"""
import json
import os
from urllib.parse import urlsplit, urlunsplit

import requests

proxy = os.environ["PROXY"]
target = os.environ["TARGET"]


def egress(proxy_url):
    # A fresh Session per request: a new connection, so the gateway may pick another member.
    with requests.Session() as s:
        r = s.get(target, proxies={"http": proxy_url, "https": proxy_url}, timeout=30)
        r.raise_for_status()
        return r.json()["ip"]


rotating = [egress(proxy) for _ in range(3)]

# A username ending in -session-<id> pins the session to one member.
parts = urlsplit(proxy)
host = parts.netloc.rpartition("@")[2]  # without PROXY's own user, if it has one
session_proxy = urlunsplit(parts._replace(netloc=f"crawler-session-42:x@{host}"))
sticky = [egress(session_proxy) for _ in range(3)]

print(json.dumps({"rotating": rotating, "sticky": sticky}))
