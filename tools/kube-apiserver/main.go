// Command kube-apiserver builds the upstream API server from its Go module so the test suites
// can run a real control plane. Test infrastructure only; no product code lives here.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
