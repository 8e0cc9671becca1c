module egress-proxies.dev/tools/pause

go 1.26.8
