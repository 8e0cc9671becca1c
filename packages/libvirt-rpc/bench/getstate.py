# libvirt's C client (through python3-libvirt): DomainGetState in tight loops.
#   seq URI NAME N          N calls on one connection, in one thread.
#   par URI NAME K SECONDS  K connections, one thread each, all calling for the same window.
# python3-libvirt releases the GIL inside every C call, so K threads keep K connections busy
# at once from one process (K python processes on a 2-core host mostly measured start-up skew
# and the processes crowding out the daemon).
import json, sys, threading, time
import libvirt

mode, uri, name = sys.argv[1], sys.argv[2], sys.argv[3]

if mode == "seq":
    n = int(sys.argv[4])
    conn = libvirt.open(uri)
    dom = conn.lookupByName(name)
    for _ in range(500):
        dom.state()
    t0 = time.perf_counter()
    for _ in range(n):
        dom.state()
    t1 = time.perf_counter()
    conn.close()
    print(json.dumps({"seconds": t1 - t0, "calls": n}))
else:
    k, seconds = int(sys.argv[4]), float(sys.argv[5])
    conns = [libvirt.open(uri) for _ in range(k)]
    doms = [c.lookupByName(name) for c in conns]
    for d in doms:
        for _ in range(200):
            d.state()
    counts = [0] * k
    ends = [0.0] * k
    go = threading.Barrier(k + 1)
    window = {}

    def worker(i):
        d = doms[i]
        go.wait()
        stop, n = window["stop"], 0
        while time.perf_counter() < stop:
            d.state()
            n += 1
        counts[i], ends[i] = n, time.perf_counter()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(k)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    window["stop"] = t0 + seconds
    go.wait()
    for t in threads:
        t.join()
    for c in conns:
        c.close()
    # Every call counted was completed inside [t0, last end]: the rate cannot be inflated by skew.
    print(json.dumps({"seconds": max(ends) - t0, "calls": sum(counts)}))
