export const GATEWAY_USAGE = `usage: egress-proxies gateway (--pool NAMESPACE/NAME | --members NAME=HOST:PORT,...) [flags]

With --pool, the pool's spec.gateway gives every default below (re-read every 2s, so a spec change
applies without a restart; the port only at start); a flag given here overrides the pool's value.

  --pool NS/NAME              route through the Ready members of this ProxyPool (read from the cluster)
  --members LIST              fixed members instead: name=host:port, comma-separated
  --kubeconfig PATH           kubeconfig for --pool; in-cluster config when absent
  --listen HOST[:PORT]        where clients connect (default 127.0.0.1; port: the pool's, else 8080); off loopback needs users
  --socks-listen HOST:PORT    also serve SOCKS5 here (CONNECT; same users, sessions as <user>-session-<id>); off loopback needs users
  --users-dir DIR             Basic auth users: one file per user holding the password (a mounted Secret);
                              default: the pool's usersSecret, read through the API
  --metrics HOST:PORT         /metrics, /healthz, /readyz on their own port (default: none)
  --selection NAME            round-robin, random or least-connections (default: the pool's, else round-robin)
  --rotate MODE               plain HTTP without a session: per-request or per-connection (default: the pool's, else per-request)
  --session-ttl DURATION      how long a session's last member is remembered, to say when it moved (default: the pool's, else 10m)
  --cooldown DURATION         how long a failing or banned member gets no new connections (default: the pool's, else 60s)
  --ban-statuses LIST         member answers that cool it down, comma-separated (default: the pool's, else 403,429)
  --drain DURATION            on SIGTERM, how long open connections may finish (default 20s)
  --log-level LEVEL           fatal, error, warn, info, debug, trace (default info)
  --log-format FORMAT         json (one object a line, default) or text (for a terminal)
`;
