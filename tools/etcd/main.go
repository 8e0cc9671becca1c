// Command etcd builds the upstream etcd server from its Go module for the test control plane.
// Test infrastructure only; no product code lives here.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
