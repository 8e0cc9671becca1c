# libvirt's C client (through python3-libvirt): DomainGetState in a tight loop.
import json, sys, time
import libvirt

uri, name, n, start_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
conn = libvirt.open(uri)
dom = conn.lookupByName(name)
for _ in range(500):
    dom.state()
delay = start_at - time.time()
if delay > 0:
    time.sleep(delay)
t0 = time.time()
for _ in range(n):
    dom.state()
t1 = time.time()
conn.close()
print(json.dumps({"start": t0, "end": t1, "n": n}))
