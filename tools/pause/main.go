// Command pause is the sandbox ("infra") container of the test cluster's Pods: it holds the Pod's
// namespaces, reaps orphaned children as PID 1, and exits on SIGINT or SIGTERM, as the upstream
// pause does. Built static from this module so no registry image is needed. Test infrastructure
// only; no product code lives here.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
